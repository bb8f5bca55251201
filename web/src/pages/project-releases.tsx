// Release history with status, what happened to failed releases (step, code, message, hint, output
// tail, roll back / view logs), storage, GitHub commit and check links; rollback (with the data-restore
// confirmation) and removal of inactive release files.
import { useState } from 'preact/hooks';
import { githubRoutes, linkResponseSchema, type LinkResponse } from '../../../src/github/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import {
  deleteReleaseConfirmation,
  deleteReleaseResponseSchema,
  releaseListResponseSchema,
  releaseRoutes,
  type Release,
} from '../../../src/releases/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { DataTable } from '../components/data-table.js';
import { projectPage } from '../components/project-frame.js';
import { RollbackDialog } from '../components/rollback-dialog.js';
import { failureSentence, ReleaseFailureDetails, rollbackTargetOf } from '../components/release-failure.js';
import { RelativeTime } from '../components/relative-time.js';
import { Empty, Pill, StatusNotice } from '../components/status.js';
import { formatBytes, shortId } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';

const tone = { active: 'ok', inactive: 'idle', failed: 'bad', candidate: 'warn' } as const;

/** GitHub links of a release from the project's recent checks (commit and check run). Pure. */
export function githubLinks(
  github: LinkResponse | undefined,
  releaseId: string,
): { commit: string; sha: string; checks: { name: string; state: string; url: string | null }[] } | null {
  const repo = github?.link?.repository.fullName;
  if (!github || !repo) return null;
  const checks = github.checks.filter((c) => c.releaseId === releaseId);
  const sha = checks[0]?.sha;
  if (!sha) return null;
  const base = `https://github.com/${repo}`;
  return {
    sha,
    commit: `${base}/commit/${sha}`,
    checks: checks.map((c) => ({ name: c.name, state: c.state, url: c.checkRunId ? `${base}/runs/${c.checkRunId}` : null })),
  };
}

function Releases({ project }: { project: Project }) {
  const state = useApi(routePath(releaseRoutes.releases, { id: project.id }), releaseListResponseSchema);
  const github = useApi(routePath(githubRoutes.link, { id: project.id }), linkResponseSchema);
  const [rollbackTarget, setRollbackTarget] = useState<Release | null>(null);
  const [deleteTarget, setDeleteTarget] = useState<Release | null>(null);
  const [allowLoss, setAllowLoss] = useState(false);
  const [message, setMessage] = useState('');
  const base = `/projects/${encodeURIComponent(project.slug)}`;

  return (
    <AsyncView state={state}>
      {(data) => {
        const active = data.releases.find((r) => r.id === data.activeReleaseId);
        const target = rollbackTargetOf(data);
        return (
          <>
            <StatusNotice message={message} id="rollback-result" />
            {data.releases.length === 0 ? (
              <Empty title="No releases yet">
                <p>
                  Run <code>svc deploy</code> in a linked app directory, or push to a linked GitHub branch.
                </p>
              </Empty>
            ) : (
              <DataTable id="releases-table" caption="Releases, newest first" columns={['Release', 'Status', 'Created', 'Source', 'Size']} actions>
                {data.releases.map((r) => {
                  const links = githubLinks(github.data, r.id);
                  return (
                    <tr key={r.id} data-release={r.id} data-status={r.status}>
                      <td>
                        <code title={r.id}>{shortId(r.id)}</code>
                        <div class="muted small-text" title={r.digest}>
                          sha256 {r.digest.slice(0, 12)}
                        </div>
                      </td>
                      <td>
                        <Pill tone={tone[r.status]}>{r.status}</Pill>
                        {r.step ? <div class="muted small-text">step: {r.step}</div> : null}
                        {r.failure ? (
                          <div class="small-text">
                            <p class="failure">{failureSentence(r.failure)}</p>
                            <ReleaseFailureDetails
                              compact
                              failure={r.failure}
                              releaseId={r.id}
                              base={base}
                              rollBack={
                                target && r === data.releases[0]
                                  ? { label: `Roll back to ${shortId(target.id)}`, open: () => setRollbackTarget(target) }
                                  : undefined
                              }
                            />
                          </div>
                        ) : null}
                      </td>
                      <td>
                        Uploaded <RelativeTime iso={r.createdAt} /> by {r.createdBy.name ?? r.createdBy.type}
                        {r.status === 'active' && r.activatedAt ? (
                          <div class="muted small-text">
                            live since <RelativeTime iso={r.activatedAt} />
                          </div>
                        ) : null}
                      </td>
                      <td>
                        {links ? (
                          <>
                            <a href={links.commit} target="_blank" rel="noopener noreferrer">
                              {links.sha.slice(0, 7)}
                            </a>
                            {links.checks.map((c) => (
                              <div key={c.name} class="small-text">
                                {c.url ? (
                                  <a href={c.url} target="_blank" rel="noopener noreferrer">
                                    {c.name}
                                  </a>
                                ) : (
                                  c.name
                                )}{' '}
                                {c.state}
                              </div>
                            ))}
                          </>
                        ) : (
                          <span class="muted">{r.createdBy.type === 'github' ? 'GitHub' : 'CLI upload'}</span>
                        )}
                      </td>
                      <td>
                        {formatBytes(r.storage.bundleBytes)}
                        {r.storage.snapshotBytes !== null ? <div class="muted small-text">snapshot {formatBytes(r.storage.snapshotBytes)}</div> : null}
                        {!r.artifactRetained ? <div class="muted small-text">files removed</div> : null}
                      </td>
                      <td class="row-actions">
                        {r.status === 'inactive' && r.artifactRetained ? (
                          <button type="button" class="small" id={`rollback-${r.id}`} onClick={() => setRollbackTarget(r)}>
                            Roll back
                          </button>
                        ) : null}
                        {r.status !== 'active' && r.status !== 'candidate' && r.artifactRetained ? (
                          <button type="button" class="small secondary" id={`delete-release-${r.id}`} onClick={() => (setAllowLoss(false), setDeleteTarget(r))}>
                            Remove files
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </DataTable>
            )}
            {rollbackTarget ? (
              <RollbackDialog
                project={project}
                target={rollbackTarget}
                active={active}
                list={data}
                onClose={() => setRollbackTarget(null)}
                onDone={(result) => {
                  setMessage(
                    `Rolled back: release ${result.release.id} is active${result.restoredData ? ' and the database was restored from the snapshot' : ''}.`,
                  );
                  state.reload();
                }}
              />
            ) : null}
            {deleteTarget ? (
              <ConfirmDialog
                title={`Remove the files of ${shortId(deleteTarget.id)}`}
                confirmLabel="Remove files"
                danger
                phrase={deleteReleaseConfirmation(project.slug, deleteTarget.id)}
                onClose={() => setDeleteTarget(null)}
                onConfirm={async () => {
                  const body = { confirm: deleteReleaseConfirmation(project.slug, deleteTarget.id), allowRollbackLoss: allowLoss };
                  const done = await api('DELETE', routePath(releaseRoutes.release, { id: project.id, releaseId: deleteTarget.id }), {
                    body,
                    schema: deleteReleaseResponseSchema,
                  });
                  setMessage(`Removed the files of ${done.releaseId}; ${formatBytes(done.freedBytes)} freed.`);
                  state.reload();
                }}
              >
                <p>The release’s files are deleted; its record and audit history stay. You can no longer roll back to it.</p>
                {active?.predecessorId === deleteTarget.id ? (
                  <label class="check">
                    <input
                      type="checkbox"
                      id="allow-rollback-loss"
                      checked={allowLoss}
                      onChange={(e) => setAllowLoss((e.target as HTMLInputElement).checked)}
                    />{' '}
                    This is the rollback target of the active release: also remove the active release’s data-restore snapshot
                  </label>
                ) : null}
              </ConfirmDialog>
            ) : null}
          </>
        );
      }}
    </AsyncView>
  );
}

/** /projects/:slug/releases */
export const ProjectReleasesPage = projectPage('releases', Releases);
