// Project settings: identifiers, and permanent site deletion with the exact phrase and a
// data-loss acknowledgement (needs an owner or organization administrator).
import { useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import { deleteProjectResponseSchema, deleteSitePhrase, projectRoutes, type Project } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { projectPage } from '../components/project-frame.js';
import { formatTime } from '../lib/format.js';
import { navigate } from '../router.js';

function Settings({ project }: { project: Project }) {
  const [deleting, setDeleting] = useState(false);
  const phrase = deleteSitePhrase(project.slug);
  return (
    <>
      <section class="card" aria-labelledby="ids-title">
        <h2 id="ids-title">Project</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{project.id}</code>
          </dd>
          <dt>Slug</dt>
          <dd>
            <code>{project.slug}</code>
          </dd>
          <dt>Organization</dt>
          <dd>
            <code>{project.organizationId}</code>
          </dd>
          <dt>Created</dt>
          <dd>{formatTime(project.createdAt)}</dd>
        </dl>
      </section>
      <section class="card danger-zone" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete this site</h2>
        <p>
          Stops the app and permanently removes its database, releases, rollback snapshots, recovery points, backups, secrets, logs, metrics, domains and
          project tokens. The audit history keeps a record of the deletion.
        </p>
        <button type="button" class="danger" id="delete-project" onClick={() => setDeleting(true)}>
          Delete site…
        </button>
      </section>
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${project.slug}`}
          confirmLabel="Delete site permanently"
          danger
          phrase={phrase}
          acknowledge="I understand the database and every backup on this platform are erased and cannot be recovered."
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await api('DELETE', routePath(projectRoutes.project, { id: project.id }), {
              body: { confirm: phrase, acknowledgeDataLoss: true },
              schema: deleteProjectResponseSchema,
            });
            navigate('/');
          }}
        >
          <p class="warning">Copies outside this platform (downloaded backups, external databases, CDN caches) are not touched.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** /projects/:slug/settings */
export const ProjectSettingsPage = projectPage('settings', Settings);
