// The backup operations as the HTTP routes and the console call them. Its own module so the
// routes depend on the operations, not on the feature that builds them and registers the routes.
import type { BackupListResponse, BackupSchedule, SetScheduleBody } from './contract.js';
import type { BackupDeps, BackupSubject, openBackupForDownload, restoreBackup } from './backup-service.js';
import type { BackupRow } from './backup-store.js';

export interface BackupOperations {
  deps: BackupDeps;
  list(projectId: string): BackupListResponse;
  create(subject: BackupSubject, kind: BackupRow['kind']): Promise<BackupRow>;
  delete(subject: BackupSubject, backupId: string): Promise<void>;
  download(projectId: string, backupId: string): ReturnType<typeof openBackupForDownload>;
  restore(subject: BackupSubject, backupId: string, confirm: string): ReturnType<typeof restoreBackup>;
  /** Set (or with null remove) the schedule; audited as backup.schedule. */
  setSchedule(subject: BackupSubject, input: SetScheduleBody | null): BackupSchedule | null;
}
