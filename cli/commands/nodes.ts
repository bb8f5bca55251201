// `svc nodes token [--expires-in-minutes N]` and `svc nodes list` (platform admin): one-time runner
// registration tokens and the enrolled nodes with their status (src/nodes/contract.ts).
import type { Command } from 'commander';
import { nodeListSchema, registrationTokenSchema, type NodeView } from '../../src/nodes/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';

interface ServerOption {
  server?: string;
}

/** Human table of nodes (pure). */
export function nodeRows(nodes: readonly NodeView[]): string[] {
  if (nodes.length === 0) return ['No runner nodes yet. Create a token with `svc nodes token` and start `svc-runner` with it.'];
  return formatTable(
    ['node', 'status', 'region', 'placed', 'concurrency', 'labels', 'last seen'],
    nodes.map((n) => [
      n.id,
      n.status,
      n.region,
      `${n.placed}/${n.capacity}`,
      String(n.concurrency),
      Object.entries(n.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '-',
      n.lastSeenAt ?? 'never',
    ]),
  );
}

/** `svc nodes`. */
export const nodesCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const nodes = program.command('nodes').description('runner nodes: registration tokens and status (platform admin)');
    nodes
      .command('token')
      .description('create a one-time registration token for SVC_RUNNER_REGISTRATION_TOKEN (shown once)')
      .option('--expires-in-minutes <n>', 'minutes until the unused token expires (default 60)', (v) => Number.parseInt(v, 10))
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: ServerOption & { expiresInMinutes?: number }) => {
        const { client } = await connect(ctx, { server: options.server });
        const body = options.expiresInMinutes === undefined ? {} : { expiresInMinutes: options.expiresInMinutes };
        const created = await client.request({
          method: 'POST',
          path: '/api/admin/nodes/registration-tokens',
          body,
          schema: registrationTokenSchema,
          idempotent: false,
        });
        ctx.out.result(created, () => [created.token, `expires ${created.expiresAt}; it enrolls one node and is stored only as a hash.`]);
      });
    nodes
      .command('list')
      .description('enrolled nodes: status (ready, draining, offline), region, placed projects, labels')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: ServerOption) => {
        const { client } = await connect(ctx, { server: options.server });
        const list = await client.request({ method: 'GET', path: '/api/admin/nodes', schema: nodeListSchema });
        ctx.out.result(list, () => nodeRows(list.nodes));
      });
  },
};
