// `svc activity [--limit n] [--before id] [--org id] [--json]`: the audit feed of GET /api/audit,
// newest first. --json prints the API page unchanged (events + nextCursor).
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { AUDIT_MAX_LIMIT, type AuditEvent, type AuditPage } from '../../src/audit/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';

interface ActivityOptions {
  limit?: string;
  before?: string;
  org?: string;
  server?: string;
}

/** Short human description of who did it. */
function actorLabel(event: AuditEvent): string {
  return event.actor.name ? `${event.actor.name} (${event.actor.type})` : `${event.actor.type}:${event.actor.id}`;
}

/** Human rendering of one feed page, with the command for the next page when there is one. */
export function activityLines(page: AuditPage): string[] {
  if (page.events.length === 0) return ['No activity.'];
  const lines = formatTable(
    ['time', 'kind', 'actor', 'project', 'event'],
    page.events.map((e) => [e.createdAt.replace(/\.\d+Z$/, 'Z'), e.kind, actorLabel(e), e.projectId, e.id]),
  );
  if (page.nextCursor) lines.push('', `Older events: svc activity --before ${page.nextCursor}`);
  return lines;
}

/** Parse --limit: an integer from 1 to the server maximum. */
export function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > AUDIT_MAX_LIMIT)
    throw new SvcError('SVC_USAGE', `--limit must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
  return value;
}

async function activity(ctx: CliContext, options: ActivityOptions): Promise<void> {
  const limit = parseLimit(options.limit);
  const { client } = await connect(ctx, { server: options.server });
  const page = await client.listAudit({ limit, before: options.before, organizationId: options.org });
  ctx.out.result(page, () => activityLines(page));
}

/** The `svc activity` command. */
export const activityCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('activity')
      .description('show the audit feed (newest first; same data as GET /api/audit)')
      .option('--limit <n>', `events per page (1-${AUDIT_MAX_LIMIT}, server default 50)`)
      .option('--before <event-id>', 'show events older than this one (cursor from the previous page)')
      .option('--org <organization>', 'only this organization (id)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((options: ActivityOptions) => activity(ctx, options));
  },
};
