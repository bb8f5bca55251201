// Roll back to an inactive release: code-only by default; restoring the database from the
// pre-deploy snapshot is offered only where the server allows it, says what is lost (the same lines
// as `svc rollback --restore-data`, src/releases/restore-preview.ts) and needs the exact phrase.
import { useState } from 'preact/hooks';
import { routePath } from '../../../src/identity/contract.js';
import type { Project } from '../../../src/projects/contract.js';
import {
  releaseRoutes,
  restoreConfirmation,
  restorePreview,
  rollbackResponseSchema,
  type Release,
  type ReleaseListResponse,
  type RollbackResponse,
} from '../../../src/releases/contract.js';
import { api } from '../api/client.js';
import { formatTime, shortId } from '../lib/format.js';
import { ConfirmDialog } from './confirm-dialog.js';

/** Whether a data-restoring rollback to `target` is possible (spec: immediately previous + snapshot). Pure. */
export function canRestoreData(target: Release, active: Release | undefined): boolean {
  return active !== undefined && active.predecessorId === target.id && active.storage.snapshotBytes !== null;
}

export interface RollbackDialogProps {
  project: Project;
  target: Release;
  active: Release | undefined;
  /** The project's release list (what a data restore loses is worked out from it). */
  list: ReleaseListResponse;
  onDone(result: RollbackResponse): void;
  onClose(): void;
}

/** The rollback confirmation dialog. */
export function RollbackDialog({ project, target, active, list, onDone, onClose }: RollbackDialogProps) {
  const [restoreData, setRestoreData] = useState(false);
  const restorable = canRestoreData(target, active);
  const phrase = restoreConfirmation(project.slug);

  const confirm = async () => {
    const body = restoreData ? { releaseId: target.id, restoreData: true, confirm: phrase } : { releaseId: target.id, restoreData: false };
    onDone(await api('POST', routePath(releaseRoutes.rollback, { id: project.id }), { body, schema: rollbackResponseSchema }));
  };

  return (
    <ConfirmDialog
      title={`Roll back to ${shortId(target.id)}`}
      confirmLabel={restoreData ? 'Roll back and restore data' : 'Roll back'}
      danger={restoreData}
      onConfirm={confirm}
      onClose={onClose}
      {...(restoreData ? { phrase } : {})}
    >
      <p>
        Release <code>{target.id}</code> from {formatTime(target.createdAt)} becomes active after it passes its health check against the current database. The
        active release
        {active ? (
          <>
            {' '}
            <code>{active.id}</code>
          </>
        ) : null}{' '}
        is stopped.
      </p>
      {restorable ? (
        <label class="check">
          <input id="rollback-restore-data" type="checkbox" checked={restoreData} onChange={(e) => setRestoreData((e.target as HTMLInputElement).checked)} />{' '}
          Also restore the database from the snapshot taken before release {active ? shortId(active.id) : ''}
        </label>
      ) : (
        <p class="muted small-text">
          Data restore is only possible when rolling back to the immediately previous release while the active release still has its pre-deploy snapshot.
        </p>
      )}
      {restoreData ? (
        <div class="warning" role="alert" id="restore-warning">
          {restorePreview(list, target.id, project.slug).lines.map((line) => (
            <p key={line}>{line.trim()}</p>
          ))}
        </div>
      ) : null}
    </ConfirmDialog>
  );
}
