// HTTP contract of backups: manual backups, schedule, listing, download and restore. Shared by the
// server and the CLI; imports only zod.
import { z } from 'zod';

export const backupRoutes = {
  /** GET: list with the schedule; POST: take a manual backup now. */
  backups: '/api/projects/:id/backups',
  /** DELETE: remove one backup. */
  backup: '/api/projects/:id/backups/:backupId',
  /** GET: the decrypted SQLite database (application/vnd.sqlite3). */
  download: '/api/projects/:id/backups/:backupId/download',
  /** POST `{ confirm: "restore <slug>" }`: stop the app, restore the database, start it again. */
  restore: '/api/projects/:id/backups/:backupId/restore',
  /** PUT `{ intervalMinutes, keep, maxAgeDays }`; DELETE turns scheduled backups off. */
  schedule: '/api/projects/:id/backup-schedule',
} as const;

/** Media type of a downloaded backup (a plain SQLite database file). */
export const BACKUP_DOWNLOAD_MEDIA_TYPE = 'application/vnd.sqlite3';

/** The exact phrase that confirms restoring a backup. */
export function backupRestorePhrase(projectSlug: string): string {
  return `restore ${projectSlug}`;
}

const isoTime = z.string().describe('ISO 8601 timestamp');

export const backupSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  kind: z.enum(['manual', 'scheduled']),
  createdAt: isoTime,
  sizeBytes: z.number().int().describe('encrypted file size'),
  databaseBytes: z.number().int().describe('size of the database inside'),
  hadDatabase: z.boolean().describe('false when the project had no database yet (restoring removes it)'),
  createdBy: z.object({ type: z.string(), id: z.string(), name: z.string().nullable() }),
});
export type Backup = z.infer<typeof backupSchema>;

export const backupScheduleSchema = z.object({
  intervalMinutes: z.number().int(),
  keep: z.number().int().describe('scheduled backups kept (newest first)'),
  maxAgeDays: z.number().int().describe('scheduled backups older than this are removed'),
  nextDueAt: isoTime,
  lastSuccessAt: isoTime.nullable(),
  lastFailure: z.object({ at: isoTime, code: z.string() }).nullable().describe('the last scheduled run, when it failed (cleared by the next success)'),
  overdue: z.boolean().describe('no successful scheduled backup for two intervals'),
});
export type BackupSchedule = z.infer<typeof backupScheduleSchema>;

export const backupListResponseSchema = z.object({ backups: z.array(backupSchema).describe('newest first'), schedule: backupScheduleSchema.nullable() });
export type BackupListResponse = z.infer<typeof backupListResponseSchema>;
export const backupResponseSchema = z.object({ backup: backupSchema });
export const backupParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug'), backupId: z.string().min(1).max(100) });
export const restoreBackupBodySchema = z.object({ confirm: z.string().max(300).describe('exactly "restore <project-slug>"') });
export const restoreBackupResponseSchema = z.object({ backup: backupSchema, restartedReleaseId: z.string().nullable() });
export const deleteBackupResponseSchema = z.object({ deleted: z.literal(true), id: z.string() });
export const setScheduleBodySchema = z.object({
  intervalMinutes: z
    .number()
    .int()
    .min(5)
    .max(30 * 24 * 60),
  keep: z.number().int().min(1).max(1000).default(7),
  maxAgeDays: z.number().int().min(1).max(3650).default(30),
});
export type SetScheduleBody = z.input<typeof setScheduleBodySchema>;
export const scheduleResponseSchema = z.object({ schedule: backupScheduleSchema.nullable() });
