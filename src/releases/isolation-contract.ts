// HTTP contract of app isolation: how apps on this control plane are kept apart (sandbox, containers
// or nothing). Shown in GET /readyz, GET /api/isolation, `svc doctor` and the console banner, so an
// operator can never run unisolated apps without seeing it. Re-exported by contract.ts; zod only.
import { z } from 'zod';

export const isolationRoutes = {
  /** GET (any signed-in user or token): `{ isolation }`. */
  isolation: '/api/isolation',
} as const;

export const isolationModeValues = ['sandbox', 'unsandboxed', 'container', 'swarm'] as const;

export const isolationSchema = z.object({
  mode: z
    .enum(isolationModeValues)
    .describe(
      'sandbox: bubblewrap per app (default); unsandboxed: plain processes (SVC_SANDBOX=off); container: podman (SVC_RUNNER=container); swarm: Docker swarm services (SVC_DRIVER=swarm)',
    ),
  network: z.enum(['isolated', 'shared']).describe("isolated: an app reaches only its own forwarded port; shared: apps use the host's network"),
  perProjectUid: z.boolean().describe('each project runs under a uid of its own'),
  available: z.boolean().describe('false when apps cannot be started at all (see problem)'),
  problem: z.object({ code: z.string(), message: z.string() }).nullable().describe('why apps cannot start, e.g. SVC_SANDBOX_UNAVAILABLE'),
  warning: z.string().optional().describe('present whenever isolation is weaker than the default or apps cannot start'),
});
export type Isolation = z.infer<typeof isolationSchema>;

export const isolationResponseSchema = z.object({ isolation: isolationSchema });
export type IsolationResponse = z.infer<typeof isolationResponseSchema>;

/** One line for logs, terminals and the console: the warning when there is one. Pure. */
export function isolationSummary(isolation: Isolation): string {
  if (isolation.warning) return isolation.warning;
  if (isolation.mode === 'container') return 'apps run in podman containers, each project on its own network';
  if (isolation.mode === 'swarm')
    return "apps run as Docker swarm services, each project on its own overlay network (its published ports guarded by Docker's iptables rules)";
  return `apps run in a bubblewrap sandbox each, ${isolation.network} network${isolation.perProjectUid ? ', a uid per project' : ''}`;
}
