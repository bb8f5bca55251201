// Point-in-time recovery: enable it, see epochs and what is exported, restore into a new stopped
// database at a time or sequence, then activate a restore with the exact phrase.
import { useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import {
  activateRestoreResponseSchema,
  enableRecoveryResponseSchema,
  recoveryRestorePhrase,
  recoveryRoutes,
  recoveryStatusSchema,
  restoreRecoveryResponseSchema,
  type RecoveryRestore,
} from '../../../src/recovery/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Field, inputValue } from '../components/form-field.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox, Pill, StatusNotice } from '../components/status.js';
import { formatBytes, formatTime, shortId } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

function Recovery({ project }: { project: Project }) {
  const state = useApi(routePath(recoveryRoutes.recovery, { id: project.id }), recoveryStatusSchema);
  const [asOf, setAsOf] = useState('');
  const [activating, setActivating] = useState<RecoveryRestore | null>(null);
  const [message, setMessage] = useState('');
  const action = useAction();

  return (
    <AsyncView state={state} feature="Point-in-time recovery">
      {(s) => (
        <>
          <section class="card" aria-labelledby="recovery-title">
            <h2 id="recovery-title">Point-in-time recovery</h2>
            <StatusNotice message={message} />
            {!s.enabled ? (
              <>
                <p class="muted">Off. When on, every committed write is journaled, encrypted and exported, so the database can be restored to any moment.</p>
                <button
                  type="button"
                  id="recovery-enable"
                  disabled={action.busy}
                  onClick={() =>
                    void action.run(async () => {
                      await api('POST', routePath(recoveryRoutes.recovery, { id: project.id }), {
                        body: { enabled: true },
                        schema: enableRecoveryResponseSchema,
                      });
                      setMessage('Recovery enabled; it applies when the app starts next.');
                      state.reload();
                    })
                  }
                >
                  Enable recovery
                </button>
              </>
            ) : (
              <dl class="facts">
                <dt>Status</dt>
                <dd>
                  <Pill tone={s.attached ? 'ok' : 'warn'}>{s.attached ? 'journaling' : 'starts at next release or restart'}</Pill>
                </dd>
                <dt>Committed / exported</dt>
                <dd>
                  {s.committedThrough ?? '—'} / {s.exportedThrough ?? '—'}
                </dd>
                <dt>Newest commit</dt>
                <dd>{formatTime(s.newestCommitAt)}</dd>
                <dt>Epochs</dt>
                <dd>{s.epochs.length}</dd>
              </dl>
            )}
            {s.enabled ? (
              <form
                class="stack"
                onSubmit={action.submit(async () => {
                  const { restore } = await api('POST', routePath(recoveryRoutes.restore, { id: project.id }), {
                    body: { asOf: new Date(asOf).toISOString() },
                    schema: restoreRecoveryResponseSchema,
                  });
                  setMessage(`Restored into ${restore.id} (sequence ${restore.sequence}). Activate it to make it the live database.`);
                  state.reload();
                })}
              >
                <Field
                  id="recovery-as-of"
                  label="Restore the database as of"
                  type="datetime-local"
                  step={1}
                  required
                  value={asOf}
                  onInput={(e) => setAsOf(inputValue(e))}
                  hint="Creates a new, stopped database; nothing changes until you activate it."
                />
                <button type="submit" disabled={action.busy || !asOf}>
                  Restore to a new database
                </button>
              </form>
            ) : null}
            {action.error ? <ErrorBox error={action.error} /> : null}
          </section>
          <section class="card" aria-labelledby="restores-title">
            <h2 id="restores-title">Restores</h2>
            {s.restores.length === 0 ? (
              <Empty title="No restores" />
            ) : (
              <ul class="plain-list">
                {s.restores.map((r) => (
                  <li key={r.id}>
                    <code>{shortId(r.id)}</code> as of {formatTime(r.commitAt)} (sequence {r.sequence}, {formatBytes(r.sizeBytes)}){' '}
                    {r.activatedAt ? (
                      <Pill tone="ok">activated {formatTime(r.activatedAt)}</Pill>
                    ) : (
                      <button type="button" class="small" onClick={() => setActivating(r)}>
                        Activate
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
          {activating ? (
            <ConfirmDialog
              title="Activate restored database"
              confirmLabel="Activate"
              danger
              phrase={recoveryRestorePhrase(project.slug)}
              onClose={() => setActivating(null)}
              onConfirm={async () => {
                const done = await api('POST', routePath(recoveryRoutes.activate, { id: project.id, restoreId: activating.id }), {
                  body: { confirm: recoveryRestorePhrase(project.slug) },
                  schema: activateRestoreResponseSchema,
                });
                setMessage(`Activated. The previous database was kept as ${done.undoSnapshot}.`);
                state.reload();
              }}
            >
              <p class="warning">
                The app restarts on the database as of {formatTime(activating.commitAt)}. Writes made after that moment are no longer in the live database (the
                current one is kept as an undo snapshot).
              </p>
            </ConfirmDialog>
          ) : null}
        </>
      )}
    </AsyncView>
  );
}

/** /projects/:slug/recovery */
export const ProjectRecoveryPage = projectPage('recovery', Recovery);
