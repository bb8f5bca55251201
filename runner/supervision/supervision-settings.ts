// Supervision settings from the environment (zod-validated): the controller lease and the start-up wait.
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';

const schema = z.object({
  /** Controller lease length; supervisors stop their runtime when it is not renewed in time. */
  SVC_SUPERVISOR_LEASE_MS: z.coerce.number().int().min(300).max(30_000).default(30_000),
  /** Longest start-up wait for a previous controller's lease (spec: up to 30 s). */
  SVC_SUPERVISOR_LEASE_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(30_000),
});

export interface SupervisionSettings {
  leaseMs: number;
  renewMs: number;
  maxLeaseWaitMs: number;
}

/** Read the supervision settings (throws SVC_RUNNER_CONFIG). Renewal runs at a third of the lease. */
export function readSupervisionSettings(env: Readonly<Record<string, string | undefined>>): SupervisionSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_RUNNER_CONFIG', `Invalid ${String(issue?.path[0] ?? 'supervision setting')}: ${issue?.message ?? 'invalid'}`);
  }
  const leaseMs = parsed.data.SVC_SUPERVISOR_LEASE_MS;
  return { leaseMs, renewMs: Math.max(100, Math.floor(leaseMs / 3)), maxLeaseWaitMs: parsed.data.SVC_SUPERVISOR_LEASE_WAIT_MS };
}
