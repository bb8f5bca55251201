// Retained backups for restore drills, read through the backups feature's store and key ring.
// Decryption (authenticated, all-or-nothing) runs under the project lock so retention cannot
// prune the file meanwhile; the destination is always the drill's private temp path.
import type { BackupsFeature } from '../../backups/index.js';
import { decryptBackupFile, findBackup, listBackups, unwrapDataKey } from '../../backups/index.js';
import { SvcError } from '../../core/errors.js';
import type { DrillBackups } from './run-due-drill.js';

/** The DrillBackups of the packaged platform. */
export function backupDrillSource(backups: Pick<BackupsFeature, 'deps'>, options: { lockWaitMs?: number } = {}): DrillBackups {
  const { ctx, keyring, locks } = backups.deps;
  return {
    newest(projectId) {
      const row = listBackups(ctx, projectId)[0];
      return row ? { id: row.id, file: row.path, createdAt: row.created_at } : null;
    },
    decrypt: (projectId, backupId, destPath, signal) =>
      locks.withLock(
        projectId,
        'restore-drill',
        async () => {
          const row = findBackup(ctx, projectId, backupId);
          if (!row) throw new SvcError('SVC_BACKUP_NOT_FOUND', `Backup ${backupId} is no longer retained.`);
          await decryptBackupFile(row.path, destPath, unwrapDataKey(keyring, row), { backupId: row.id, projectId });
        },
        { waitMs: options.lockWaitMs ?? 60_000, signal },
      ),
  };
}
