import { z } from 'zod';
import { SvcError } from '../../core/errors.js';

/** Monthly quotas and the warning threshold of usage forecasts. */
export interface UsageConfig {
  quota: { requests?: number; transferBytes?: number };
  /** Monthly quotas of a whole workspace (organization), across its projects. */
  workspaceQuota: { requests?: number; transferBytes?: number };
  warningPercent: number;
}

const schema = z.object({
  SVC_PROJECT_MONTHLY_REQUESTS: z.coerce.number().int().positive().optional(),
  SVC_PROJECT_MONTHLY_TRANSFER_BYTES: z.coerce.number().int().positive().optional(),
  SVC_WORKSPACE_MONTHLY_REQUESTS: z.coerce.number().int().positive().optional(),
  SVC_WORKSPACE_MONTHLY_TRANSFER_BYTES: z.coerce.number().int().positive().optional(),
  SVC_OPS_USAGE_WARNING_PERCENT: z.coerce.number().gt(0).max(100).optional(),
});

/** Read SVC_PROJECT_MONTHLY_*, SVC_WORKSPACE_MONTHLY_* (all optional) and SVC_OPS_USAGE_WARNING_PERCENT (default 80). */
export function usageConfigFromEnv(env: NodeJS.ProcessEnv): UsageConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new SvcError('SVC_OPS_USAGE_CONFIG', `Usage quotas: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  const { SVC_PROJECT_MONTHLY_REQUESTS: requests, SVC_PROJECT_MONTHLY_TRANSFER_BYTES: transferBytes } = parsed.data;
  const { SVC_WORKSPACE_MONTHLY_REQUESTS: workspaceRequests, SVC_WORKSPACE_MONTHLY_TRANSFER_BYTES: workspaceBytes } = parsed.data;
  return {
    quota: { ...(requests === undefined ? {} : { requests }), ...(transferBytes === undefined ? {} : { transferBytes }) },
    workspaceQuota: {
      ...(workspaceRequests === undefined ? {} : { requests: workspaceRequests }),
      ...(workspaceBytes === undefined ? {} : { transferBytes: workspaceBytes }),
    },
    warningPercent: parsed.data.SVC_OPS_USAGE_WARNING_PERCENT ?? 80,
  };
}
