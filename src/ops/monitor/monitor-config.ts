import { z } from 'zod';
import { SvcError } from '../../core/errors.js';

/** Monitor settings from the environment; undefined (monitor off) unless SVC_OPS_WEBHOOK_URL is set. */
export interface MonitorEnvConfig {
  intervalMs: number | false;
  usageWarningPercent: number;
  webhookUrl: string;
  webhookSecret: string;
  /** How long an always-on app may be unhealthy before it alerts. */
  unhealthyGraceMs: number;
  /** How far past due a scheduled job may be before it alerts. */
  jobGraceMs: number;
}

const schema = z.object({
  SVC_OPS_WEBHOOK_URL: z.url(),
  SVC_OPS_WEBHOOK_SECRET: z.string().min(16).max(512),
  SVC_OPS_INTERVAL_MS: z.union([z.literal('false'), z.coerce.number().int().min(1000).max(86_400_000)]).optional(),
  SVC_OPS_USAGE_WARNING_PERCENT: z.coerce.number().gt(0).max(100).optional(),
  SVC_OPS_UNHEALTHY_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).optional(),
  SVC_OPS_JOB_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400_000)
    .optional(),
});

/** Read SVC_OPS_WEBHOOK_URL, SVC_OPS_WEBHOOK_SECRET, SVC_OPS_INTERVAL_MS (ms or `false`; default 60000), SVC_OPS_USAGE_WARNING_PERCENT (default 80), SVC_OPS_UNHEALTHY_GRACE_MS (default 120000), SVC_OPS_JOB_GRACE_MS (default 900000). */
export function monitorConfigFromEnv(env: NodeJS.ProcessEnv): MonitorEnvConfig | undefined {
  if (env.SVC_OPS_WEBHOOK_URL === undefined) return undefined;
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new SvcError('SVC_OPS_CONFIG', `Operations monitor: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  const interval = parsed.data.SVC_OPS_INTERVAL_MS;
  return {
    intervalMs: interval === 'false' ? false : (interval ?? 60_000),
    usageWarningPercent: parsed.data.SVC_OPS_USAGE_WARNING_PERCENT ?? 80,
    webhookUrl: parsed.data.SVC_OPS_WEBHOOK_URL,
    webhookSecret: parsed.data.SVC_OPS_WEBHOOK_SECRET,
    unhealthyGraceMs: parsed.data.SVC_OPS_UNHEALTHY_GRACE_MS ?? 120_000,
    jobGraceMs: parsed.data.SVC_OPS_JOB_GRACE_MS ?? 15 * 60_000,
  };
}
