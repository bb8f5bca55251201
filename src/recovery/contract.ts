// HTTP contract of point-in-time recovery on the platform: enable, status, restore into a new stopped
// database, activate a restored database. Shared by the server and the CLI; imports only zod.
import { z } from 'zod';

export const recoveryRoutes = {
  /** GET: status (permission read); POST `{ enabled: true }`: enable (permission deploy). */
  recovery: '/api/projects/:id/recovery',
  /** POST `{ throughSequence | asOf, epochId? }`: restore into a new stopped database (permission rollback). */
  restore: '/api/projects/:id/recovery/restore',
  /** POST `{ confirm: "restore <slug>" }`: make a restored database the project's database (permission rollback). */
  activate: '/api/projects/:id/recovery/restores/:restoreId/activate',
} as const;

/** The exact phrase that confirms activating a restored database. */
export function recoveryRestorePhrase(projectSlug: string): string {
  return `restore ${projectSlug}`;
}

const isoTime = z.string().describe('ISO 8601 timestamp');

export const recoveryEpochSchema = z.object({
  id: z.string().describe('directory name under <projectRoot>/recovery/ (the platform epoch id)'),
  epochId: z.string().nullable().describe('epoch id written by recovery in epoch.json; null until the app began the epoch'),
  createdAt: isoTime.nullable().describe('time of the base snapshot'),
  exportedThrough: z.number().int().nullable().describe('newest sequence durably in the repository (head.json)'),
  headUpdatedAt: isoTime.nullable(),
  current: z.boolean().describe('the epoch the project database belongs to (or will begin at the next start)'),
  abandoned: z.boolean().describe('begun by a candidate whose release then failed (never live); kept, skipped by default restores'),
});

export const recoveryRestoreSchema = z.object({
  id: z.string(),
  epoch: z.string().describe('platform epoch id it was restored from'),
  epochId: z.string(),
  sequence: z.number().int().describe('committed sequence the database reflects (0 = the epoch base)'),
  commitAt: isoTime.describe('commit time of that sequence'),
  sizeBytes: z.number().int(),
  createdAt: isoTime,
  activatedAt: isoTime.nullable(),
});
export type RecoveryRestore = z.infer<typeof recoveryRestoreSchema>;

export const recoveryStatusSchema = z.object({
  enabled: z.boolean(),
  enabledAt: isoTime.nullable(),
  effective: z.literal('next-release-or-restart').describe('enabling applies when the app starts next'),
  attached: z.boolean().describe('the project database carries a recovery journal'),
  currentEpoch: z.string().nullable(),
  committedThrough: z.number().int().nullable().describe('newest sequence committed in the database'),
  exportedThrough: z.number().int().nullable().describe('newest sequence durably exported (current epoch head.json)'),
  newestCommitAt: isoTime.nullable(),
  epochs: z.array(recoveryEpochSchema).describe('oldest first'),
  restores: z.array(recoveryRestoreSchema).describe('newest first'),
});
export type RecoveryStatusResponse = z.infer<typeof recoveryStatusSchema>;

export const enableRecoveryBodySchema = z.object({ enabled: z.boolean() });
export const enableRecoveryResponseSchema = z.object({ enabled: z.literal(true), created: z.boolean(), effective: z.literal('next-release-or-restart') });

export const restoreRecoveryBodySchema = z
  .object({
    throughSequence: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
    asOf: z
      .union([z.number().int().nonnegative(), z.string().min(1).max(64)])
      .optional()
      .describe('ms since the Unix epoch or an ISO 8601 time'),
    epochId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('platform epoch id or recovery epoch id (default: the current epoch, or for asOf the epoch covering that time)'),
  })
  .refine((b) => (b.throughSequence === undefined) !== (b.asOf === undefined), { message: 'give exactly one of throughSequence and asOf' });
export type RestoreRecoveryBody = z.infer<typeof restoreRecoveryBodySchema>;
export const restoreRecoveryResponseSchema = z.object({ restore: recoveryRestoreSchema });
export type RestoreRecoveryResponse = z.infer<typeof restoreRecoveryResponseSchema>;

export const activateRestoreParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug'), restoreId: z.string().min(1).max(100) });
export const activateRestoreBodySchema = z.object({ confirm: z.string().max(300).describe('exactly "restore <project-slug>"') });
export const activateRestoreResponseSchema = z.object({
  restore: recoveryRestoreSchema,
  restartedReleaseId: z.string().nullable(),
  undoSnapshot: z.string().describe('file name (under <projectRoot>/recovery-restores/) of the database as it was before'),
});
export type ActivateRestoreResponse = z.infer<typeof activateRestoreResponseSchema>;
