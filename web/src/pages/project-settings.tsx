// Project settings: identifiers, and permanent project deletion. The dialog says what will be lost
// (the same lines as `svc project delete`, src/projects/deletion-preview.ts, with the counts this page
// can read) and needs the exact phrase and a data-loss acknowledgement (owner or organization administrator).
import { useState } from 'preact/hooks';
import { backupListResponseSchema, backupRoutes } from '../../../src/backups/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import {
  deleteProjectResponseSchema,
  deleteSitePhrase,
  domainListResponseSchema,
  domainRoutes,
  projectRoutes,
  type Project,
  deletionPreview,
  type DeletionFacts,
} from '../../../src/projects/contract.js';
import { releaseListResponseSchema, releaseRoutes } from '../../../src/releases/contract.js';
import { api } from '../api/client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { projectPage } from '../components/project-frame.js';
import { formatTime } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { navigate } from '../router.js';

function Settings({ project }: { project: Project }) {
  const [deleting, setDeleting] = useState(false);
  const phrase = deleteSitePhrase(project.slug);
  const releases = useApi(routePath(releaseRoutes.releases, { id: project.id }), releaseListResponseSchema);
  const backups = useApi(routePath(backupRoutes.backups, { id: project.id }), backupListResponseSchema);
  const domains = useApi(routePath(domainRoutes.domains, { id: project.id }), domainListResponseSchema);
  const facts: DeletionFacts = {
    ...(releases.data ? { releases: releases.data.releases.length, databaseBytes: releases.data.storage.usage.databaseBytes } : {}),
    ...(backups.data ? { backups: backups.data.backups.length } : {}),
    ...(domains.data ? { domains: domains.data.domains.length } : {}),
  };
  const preview = deletionPreview(project.slug, facts);
  const lost = (
    <ul class="plain-list" id="delete-loss">
      {preview.lost.map((l) => (
        <li key={l.label}>
          <strong>{l.label}:</strong> {l.detail}
        </li>
      ))}
    </ul>
  );
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
        <h2 id="delete-title">Delete this project</h2>
        <p>{preview.summary}</p>
        <button type="button" class="danger" id="delete-project" onClick={() => setDeleting(true)}>
          Delete project…
        </button>
      </section>
      {deleting ? (
        <ConfirmDialog
          title={`Delete the project ${project.slug}`}
          confirmLabel="Delete project permanently"
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
          <p>{preview.summary} What will be lost:</p>
          {lost}
          <p class="warning">{preview.untouched}</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** /projects/:slug/settings */
export const ProjectSettingsPage = projectPage('settings', Settings);
