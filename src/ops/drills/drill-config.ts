import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { DrillCheck } from './run-due-drill.js';

/** Packaged-platform restore drill settings (the operator chooses the values). */
export interface DrillEnvConfig {
  intervalMs: number;
  timeoutMs: number;
  /** Fixed checks; undefined = each project's health path expecting 200. */
  checks: DrillCheck[] | undefined;
  /** Give the drill app the project's decrypted secrets (default false: drills must not reach production services). */
  withSecrets: boolean;
}

const checkSchema = z
  .object({ name: z.string().min(1).max(100), path: z.string().startsWith('/').max(2000), status: z.number().int().min(100).max(599) })
  .strict();
const schema = z.object({
  SVC_RESTORE_DRILL_INTERVAL_MS: z
    .union([
      z.literal('false'),
      z.coerce
        .number()
        .int()
        .min(60_000)
        .max(90 * 86_400_000),
    ])
    .optional(),
  SVC_RESTORE_DRILL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).optional(),
  SVC_RESTORE_DRILL_CHECKS: z.string().max(20_000).optional(),
  SVC_RESTORE_DRILL_SECRETS: z.enum(['true', 'false']).optional(),
});

/**
 * Read SVC_RESTORE_DRILL_INTERVAL_MS (default 86400000 = daily per project; `false` turns drills
 * off), SVC_RESTORE_DRILL_TIMEOUT_MS (default 120000), SVC_RESTORE_DRILL_CHECKS (JSON array of
 * `{name, path, status}`; default the project's health path expecting 200) and
 * SVC_RESTORE_DRILL_SECRETS (`true` to pass the project's secrets; default false). Drills run only
 * when the monitor runs.
 */
export function drillConfigFromEnv(env: NodeJS.ProcessEnv): DrillEnvConfig | undefined {
  const parsed = schema.safeParse(env);
  const fail = (what: string): never => {
    throw new SvcError('SVC_OPS_DRILL_CONFIG', `Restore drills: ${what}`);
  };
  if (!parsed.success) return fail(`${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  const e = parsed.data;
  if (e.SVC_RESTORE_DRILL_INTERVAL_MS === 'false') return undefined;
  let checks: DrillCheck[] | undefined;
  if (e.SVC_RESTORE_DRILL_CHECKS !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(e.SVC_RESTORE_DRILL_CHECKS);
    } catch {
      return fail('SVC_RESTORE_DRILL_CHECKS is not JSON');
    }
    const list = z.array(checkSchema).min(1).max(20).safeParse(json);
    if (!list.success) return fail(`SVC_RESTORE_DRILL_CHECKS ${list.error.issues[0]?.path.join('.')} ${list.error.issues[0]?.message}`);
    checks = list.data;
  }
  return {
    intervalMs: e.SVC_RESTORE_DRILL_INTERVAL_MS ?? 86_400_000,
    timeoutMs: e.SVC_RESTORE_DRILL_TIMEOUT_MS ?? 120_000,
    checks,
    withSecrets: e.SVC_RESTORE_DRILL_SECRETS === 'true',
  };
}
