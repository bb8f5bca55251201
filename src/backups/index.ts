// Public surface of backups for the composition root, the master-key rotation and ops (drills, monitor).
export { createBackups, projectDatabase, type BackupsFeature, type BackupsOptions } from './backups-feature.js';
export { backupsMigrations, findBackup, findSchedule, listBackups, listSchedules, rewrapBackupKeys, unwrapDataKey } from './backup-store.js';
export { decryptBackupFile } from './backup-format.js';
export type { AppControl, BackupJobs } from './backup-service.js';
export { intervalTimer, type SchedulerTimer } from './backup-scheduler.js';
