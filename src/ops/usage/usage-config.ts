import { z } from 'zod';
import { SvcError } from '../../core/errors.js';

/** Monthly quotas and the warning threshold of usage forecasts. */
export interface UsageConfig {
  quota: { requests?: number; transferBytes?: number };
  warningPercent: number;
}

const schema = z.object({
  SVC_PROJECT_MONTHLY_REQUESTS: z.coerce.number().int().positive().optional(),
  SVC_PROJECT_MONTHLY_TRANSFER_BYTES: z.coerce.number().int().positive().optional(),
  SVC_OPS_USAGE_WARNING_PERCENT: z.coerce.number().gt(0).max(100).optional(),
});

/** Read SVC_PROJECT_MONTHLY_REQUESTS, SVC_PROJECT_MONTHLY_TRANSFER_BYTES (both optional) and SVC_OPS_USAGE_WARNING_PERCENT (default 80). */
export function usageConfigFromEnv(env: NodeJS.ProcessEnv): UsageConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new SvcError('SVC_OPS_USAGE_CONFIG', `Usage quotas: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  const { SVC_PROJECT_MONTHLY_REQUESTS: requests, SVC_PROJECT_MONTHLY_TRANSFER_BYTES: transferBytes } = parsed.data;
  return {
    quota: { ...(requests === undefined ? {} : { requests }), ...(transferBytes === undefined ? {} : { transferBytes }) },
    warningPercent: parsed.data.SVC_OPS_USAGE_WARNING_PERCENT ?? 80,
  };
}
