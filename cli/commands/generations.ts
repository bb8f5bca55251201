// `svc generations <project>` (desired vs observed generation and recent operations) and
// `svc stop <project>` (a new `stopped` generation) for projects placed on runner nodes.
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { generationStatusSchema, type GenerationStatus } from '../../src/nodes/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';

/** Human lines of a generation status (pure). */
export function generationRows(status: GenerationStatus): string[] {
  const desired = status.desired
    ? `generation ${status.desired.generation} ${status.desired.state}${status.desired.releaseId ? ` ${status.desired.releaseId}` : ''}`
    : 'none';
  const observed = status.observed
    ? `generation ${status.observed.generation} ${status.observed.state}${status.observed.releaseId ? ` ${status.observed.releaseId}` : ''} (${status.observed.kind}, ${status.observed.observedAt})`
    : 'none yet';
  const lines = [`node: ${status.nodeId ?? 'not placed'}`, `desired: ${desired}`, `observed: ${observed}`];
  if (status.operations.length > 0) {
    lines.push(
      '',
      ...formatTable(
        ['operation', 'generation', 'fence', 'status', 'attempts', 'error'],
        status.operations.map((o) => [o.id, String(o.generation), String(o.fence), o.status, String(o.attempts), o.errorCode ?? '']),
      ),
    );
  }
  return lines;
}

/** `svc generations` and `svc stop`. */
export const generationsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('generations <project>')
      .description('desired and observed generation of a project placed on a runner node, with its operations')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (project: string, options: { server?: string }) => {
        const { client } = await connect(ctx, { server: options.server });
        const status = await client.request({
          method: 'GET',
          path: routePath('/api/projects/:id/generations', { id: project }),
          schema: generationStatusSchema,
        });
        ctx.out.result(status, () => generationRows(status));
      });
    program
      .command('stop <project>')
      .description('ask the runner node of a placed project to stop it (a new stopped generation)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (project: string, options: { server?: string }) => {
        const { client } = await connect(ctx, { server: options.server });
        const status = await client.request({
          method: 'POST',
          path: routePath('/api/projects/:id/generations', { id: project }),
          body: { state: 'stopped' },
          schema: generationStatusSchema,
          idempotent: false,
        });
        ctx.out.result(status, () => generationRows(status));
      });
  },
};
