// Scheduled encrypted backups: the schedule (interval, kept, max age, overdue), backups with
// download, restore (exact phrase) and delete, and "back up now".
import { useState } from 'preact/hooks';
import {
  backupListResponseSchema,
  backupResponseSchema,
  backupRestorePhrase,
  backupRoutes,
  restoreBackupResponseSchema,
  scheduleResponseSchema,
  type Backup,
  type BackupSchedule,
} from '../../../src/backups/contract.js';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import { api } from '../api/client.js';
import { AsyncView } from '../components/async-view.js';
import { ConfirmDelete } from '../components/confirm-delete.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { DataTable } from '../components/data-table.js';
import { Field, inputValue } from '../components/form-field.js';
import { projectPage } from '../components/project-frame.js';
import { Empty, ErrorBox, Pill, StatusNotice } from '../components/status.js';
import { formatBytes, formatRelative, formatTime, shortId } from '../lib/format.js';
import { useApi } from '../lib/use-api.js';
import { useAction } from '../lib/use-action.js';

function ScheduleForm({ project, schedule, onSaved }: { project: Project; schedule: BackupSchedule | null; onSaved(): void }) {
  const [every, setEvery] = useState(String(schedule?.intervalMinutes ?? 1440));
  const [keep, setKeep] = useState(String(schedule?.keep ?? 7));
  const [maxAge, setMaxAge] = useState(String(schedule?.maxAgeDays ?? 30));
  const action = useAction();
  const path = routePath(backupRoutes.schedule, { id: project.id });
  return (
    <form
      class="stack"
      onSubmit={action.submit(async () => {
        await api('PUT', path, { body: { intervalMinutes: Number(every), keep: Number(keep), maxAgeDays: Number(maxAge) }, schema: scheduleResponseSchema });
        onSaved();
      })}
    >
      <div class="row-fields">
        <Field id="backup-interval" label="Every (minutes)" type="number" min={5} max={43200} required value={every} onInput={(e) => setEvery(inputValue(e))} />
        <Field id="backup-keep" label="Keep" type="number" min={1} max={1000} required value={keep} onInput={(e) => setKeep(inputValue(e))} />
        <Field id="backup-max-age" label="Max age (days)" type="number" min={1} max={3650} required value={maxAge} onInput={(e) => setMaxAge(inputValue(e))} />
      </div>
      <div class="actions start">
        <button type="submit" id="backup-schedule-save" disabled={action.busy}>
          {schedule ? 'Update schedule' : 'Turn on scheduled backups'}
        </button>
        {schedule ? (
          <button
            type="button"
            class="secondary"
            disabled={action.busy}
            onClick={() => void action.run(async () => (await api('DELETE', path, { schema: scheduleResponseSchema }), onSaved()))}
          >
            Turn off
          </button>
        ) : null}
      </div>
      {action.error ? <ErrorBox error={action.error} /> : null}
    </form>
  );
}

function Backups({ project }: { project: Project }) {
  const state = useApi(routePath(backupRoutes.backups, { id: project.id }), backupListResponseSchema);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [deleting, setDeleting] = useState<Backup | null>(null);
  const [message, setMessage] = useState('');
  const now = useAction();

  return (
    <AsyncView state={state} feature="Backups">
      {(data) => (
        <>
          <section class="card" aria-labelledby="schedule-title">
            <h2 id="schedule-title">Schedule</h2>
            {data.schedule ? (
              <p id="backup-schedule">
                Every {data.schedule.intervalMinutes} min, keeping {data.schedule.keep} for up to {data.schedule.maxAgeDays} days. Next{' '}
                {formatRelative(data.schedule.nextDueAt)}; last success {formatRelative(data.schedule.lastSuccessAt)}.{' '}
                {data.schedule.overdue ? <Pill tone="bad">overdue</Pill> : <Pill tone="ok">on time</Pill>}
              </p>
            ) : (
              <p class="muted">Scheduled backups are off. Backups are encrypted with the platform master key.</p>
            )}
            <ScheduleForm key={JSON.stringify(data.schedule)} project={project} schedule={data.schedule} onSaved={state.reload} />
          </section>
          <section class="card" aria-labelledby="backups-title">
            <div class="card-head">
              <h2 id="backups-title">Backups</h2>
              <button
                type="button"
                id="backup-now"
                disabled={now.busy}
                onClick={() =>
                  void now.run(async () => {
                    const { backup } = await api('POST', routePath(backupRoutes.backups, { id: project.id }), { schema: backupResponseSchema });
                    setMessage(`Backup ${backup.id} created.`);
                    state.reload();
                  })
                }
              >
                {now.busy ? 'Backing up…' : 'Back up now'}
              </button>
            </div>
            {now.error ? <ErrorBox error={now.error} /> : null}
            <StatusNotice message={message} />
            {data.backups.length === 0 ? (
              <Empty title="No backups yet" />
            ) : (
              <DataTable columns={['Backup', 'Kind', 'Taken', 'Size']} actions>
                {data.backups.map((b) => (
                  <tr key={b.id}>
                    <td>
                      <code title={b.id}>{shortId(b.id)}</code>
                    </td>
                    <td>{b.kind}</td>
                    <td title={formatTime(b.createdAt)}>{formatRelative(b.createdAt)}</td>
                    <td>
                      {formatBytes(b.databaseBytes)}
                      {!b.hadDatabase ? <div class="muted small-text">no database yet</div> : null}
                    </td>
                    <td class="row-actions">
                      <a class="button small secondary" href={routePath(backupRoutes.download, { id: project.id, backupId: b.id })} download>
                        Download
                      </a>
                      <button type="button" class="small" onClick={() => setRestoring(b)}>
                        Restore
                      </button>
                      <button type="button" class="small secondary" onClick={() => setDeleting(b)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
          </section>
          {restoring ? (
            <ConfirmDialog
              title={`Restore backup ${shortId(restoring.id)}`}
              confirmLabel="Restore database"
              danger
              phrase={backupRestorePhrase(project.slug)}
              onClose={() => setRestoring(null)}
              onConfirm={async () => {
                await api('POST', routePath(backupRoutes.restore, { id: project.id, backupId: restoring.id }), {
                  body: { confirm: backupRestorePhrase(project.slug) },
                  schema: restoreBackupResponseSchema,
                });
                setMessage(`Database restored from ${restoring.id}.`);
                state.reload();
              }}
            >
              <p class="warning">
                The app is stopped, its database is replaced by the backup from {formatTime(restoring.createdAt)}, and it is started again. Every write made
                since then is lost.
              </p>
            </ConfirmDialog>
          ) : null}
          {deleting ? (
            <ConfirmDelete
              title={`Delete backup ${shortId(deleting.id)}`}
              confirmLabel="Delete backup"
              path={routePath(backupRoutes.backup, { id: project.id, backupId: deleting.id })}
              onDeleted={state.reload}
              onClose={() => setDeleting(null)}
            >
              <p>The encrypted backup file is removed for good.</p>
            </ConfirmDelete>
          ) : null}
        </>
      )}
    </AsyncView>
  );
}

/** /projects/:slug/backups */
export const ProjectBackupsPage = projectPage('backups', Backups);
