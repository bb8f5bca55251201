// Public surface of backups for the composition root, the master-key rotation and ops (drills, monitor).
export { createBackups, projectDatabase, type BackupsFeature } from './backups-feature.js';
export { backupsMigrations, findBackup, findSchedule, listBackups, listSchedules, rewrapBackupKeys, unwrapDataKey } from './backup-store.js';
export { decryptBackupFile } from './backup-format.js';
