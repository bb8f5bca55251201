// Operator settings of backups, read from the platform's SVC_* environment like every other setting:
// an invalid value stops start-up instead of being replaced by the default without a word.
import { z } from 'zod';
import { parseEnvSettings } from '../core/env-settings.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const schema = z.object({
  SVC_BACKUP_LOCK_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(DAY_MS)
    .default(10 * 60_000),
  SVC_BACKUP_TICK_MS: z.coerce.number().int().min(100).max(DAY_MS).default(60_000),
});

export interface BackupSettings {
  /** How long backup work waits for the project lock (SVC_BACKUP_LOCK_WAIT_MS). */
  lockWaitMs: number;
  /** How often the scheduler looks for due schedules (SVC_BACKUP_TICK_MS). */
  tickMs: number;
}

/** Read the backup settings (pure); throws SVC_PLATFORM_CONFIG_INVALID naming the variable. */
export function readBackupSettings(env: Readonly<Record<string, string | undefined>>): BackupSettings {
  const s = parseEnvSettings(schema, env);
  return { lockWaitMs: s.SVC_BACKUP_LOCK_WAIT_MS, tickMs: s.SVC_BACKUP_TICK_MS };
}
