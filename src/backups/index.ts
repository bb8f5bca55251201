// Public surface of backups for the composition root and the master-key rotation.
export { createBackups, projectDatabase, type BackupsFeature, type BackupsOptions } from './backups-feature.js';
export { backupsMigrations, rewrapBackupKeys } from './backup-store.js';
export type { AppControl, BackupJobs } from './backup-service.js';
export { intervalTimer, type SchedulerTimer } from './backup-scheduler.js';
