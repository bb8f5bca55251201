// `svc place <project> [--region r] [--label k=v]...`: place a project on a runner node (project
// admin). Its uploads then converge on that node as desired generations (docs/nodes.md).
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { placementSchema } from '../../src/nodes/contract.js';
import { SvcError } from '../../src/core/errors.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatPairs } from '../output.js';

/** Parse repeated `--label k=v` values into a map (pure; throws SVC_USAGE on a malformed one). */
export function parseLabels(values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new SvcError('SVC_USAGE', `--label needs key=value, got "${value}".`);
    labels[value.slice(0, at)] = value.slice(at + 1);
  }
  return labels;
}

/** `svc place`. */
export const placeCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('place <project>')
      .description('place a project (id or slug) on a runner node chosen by region, labels and free capacity')
      .option('--region <region>', 'only nodes in this region')
      .option('--label <key=value>', 'only nodes carrying this label (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (project: string, options: { region?: string; label?: string[]; server?: string }) => {
        const { client } = await connect(ctx, { server: options.server });
        const body = { ...(options.region ? { region: options.region } : {}), labels: parseLabels(options.label ?? []) };
        const placement = await client.request({
          method: 'PUT',
          path: routePath('/api/projects/:id/placement', { id: project }),
          body,
          schema: placementSchema,
          idempotent: true,
        });
        ctx.out.result(placement, () =>
          formatPairs([
            ['project', placement.projectId],
            ['node', placement.nodeId],
            ['region', placement.region],
            ['placed', placement.placedAt],
          ]),
        );
      });
  },
};
