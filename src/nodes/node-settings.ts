// Operator settings of runner nodes (environment, with documented defaults).
import { z } from 'zod';
import { SvcError } from '../core/errors.js';

/** Timing of node liveness, operation leases, retries and upload waits. */
export interface NodeSettings {
  /** A node not seen for this long is offline (SVC_NODE_LEASE_MS, default 30 s). */
  nodeLeaseMs: number;
  /** How long an operation lease lasts unless renewed (SVC_NODE_OPERATION_LEASE_MS, default 30 s). */
  operationLeaseMs: number;
  /** How long an upload with `wait` waits for the node to observe the release (SVC_NODE_DEPLOY_WAIT_MS, default 10 min). */
  deployWaitMs: number;
  /** Leases of one operation before a transient failure becomes final (SVC_NODE_OPERATION_MAX_ATTEMPTS, default 10). */
  maxAttempts: number;
  /** First wait before an operation handed back is leased again; doubles, capped at 60 s (SVC_NODE_RETRY_DELAY_MS, default 1 s). */
  retryDelayMs: number;
  /** How long a placed project's requests are held during its node's stop-first cutover (SVC_HOLD_REQUESTS_MS, as for local projects; default 30 s). */
  holdMs: number;
}

const ms = z.coerce
  .number()
  .int()
  .min(100)
  .max(24 * 60 * 60 * 1000);

/** Read the node settings from the SVC_* environment; an invalid value stops start-up. */
export function readNodeSettings(env: Readonly<Record<string, string | undefined>>): NodeSettings {
  const parsed = z
    .object({
      SVC_NODE_LEASE_MS: ms.default(30_000),
      SVC_NODE_OPERATION_LEASE_MS: ms.default(30_000),
      SVC_NODE_DEPLOY_WAIT_MS: ms.default(600_000),
      SVC_NODE_OPERATION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
      SVC_NODE_RETRY_DELAY_MS: ms.default(1000),
      SVC_HOLD_REQUESTS_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    })
    .safeParse({
      SVC_NODE_LEASE_MS: env.SVC_NODE_LEASE_MS,
      SVC_NODE_OPERATION_LEASE_MS: env.SVC_NODE_OPERATION_LEASE_MS,
      SVC_NODE_DEPLOY_WAIT_MS: env.SVC_NODE_DEPLOY_WAIT_MS,
      SVC_NODE_OPERATION_MAX_ATTEMPTS: env.SVC_NODE_OPERATION_MAX_ATTEMPTS,
      SVC_NODE_RETRY_DELAY_MS: env.SVC_NODE_RETRY_DELAY_MS,
      SVC_HOLD_REQUESTS_MS: env.SVC_HOLD_REQUESTS_MS,
    });
  if (!parsed.success)
    throw new SvcError(
      'SVC_PLATFORM_CONFIG_INVALID',
      `Invalid node settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const d = parsed.data;
  return {
    nodeLeaseMs: d.SVC_NODE_LEASE_MS,
    operationLeaseMs: d.SVC_NODE_OPERATION_LEASE_MS,
    deployWaitMs: d.SVC_NODE_DEPLOY_WAIT_MS,
    maxAttempts: d.SVC_NODE_OPERATION_MAX_ATTEMPTS,
    retryDelayMs: d.SVC_NODE_RETRY_DELAY_MS,
    holdMs: d.SVC_HOLD_REQUESTS_MS,
  };
}
