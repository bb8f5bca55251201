// `svc usage [--project <p>] [--org <org>]`: this month's metered requests and transfer of a project
// (the linked one or --project) and of its workspace (the project's organization, or --org), against
// their quotas, with the forecast and quota warnings. Reads GET /api/projects/:id/usage and
// GET /api/orgs/:id/usage; --json prints both documents unchanged under `project` and `workspace`.
import type { Command } from 'commander';
import { formatBytes } from '../../src/core/format-bytes.js';
import { SvcError } from '../../src/core/errors.js';
import { forecastText, formatCount, quotaText } from '../../src/core/usage-text.js';
import type { UsageResponse, WorkspaceUsageResponse } from '../../src/ops/contract.js';
import { connect, type ApiClient } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable, printable } from '../format-table.js';
import { readProjectLink, PROJECT_LINK_FILE } from '../project-link.js';

interface UsageOptions {
  project?: string;
  org?: string;
  server?: string;
}

/** What `svc usage --json` prints: each API document with what it is about; null when not asked for. */
export interface UsageDocument {
  project: { id: string; slug: string; usage: UsageResponse } | null;
  workspace: { id: string; usage: WorkspaceUsageResponse } | null;
  /** Why the workspace is missing when it was implied by the project (e.g. a project-scoped token). */
  workspaceError: { code: string; message: string } | null;
}

const quantities = [
  {
    key: 'requests',
    label: 'requests',
    used: (d: UsageResponse) => d.usage.requests,
    quota: (d: UsageResponse) => d.usage.quota.requests,
    format: formatCount,
  },
  {
    key: 'transferBytes',
    label: 'transfer',
    used: (d: UsageResponse) => d.usage.transferBytes,
    quota: (d: UsageResponse) => d.usage.quota.transferBytes,
    format: formatBytes,
  },
] as const;

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const utcTime = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** One sentence per quantity at or near its quota ("requests: quota reached …"). Pure. */
export function quotaWarnings(doc: UsageResponse): string[] {
  const lines: string[] = [];
  for (const q of quantities) {
    const forecast = doc.forecast[q.key];
    const quota = q.quota(doc);
    if (!forecast.warning || quota === null) continue;
    const used = q.used(doc);
    const when = forecast.estimatedExhaustionAt === null ? '' : ` at ${utcTime(forecast.estimatedExhaustionAt)}`;
    if (used >= quota) lines.push(`${q.label}: quota reached${when} (${q.format(used)} of ${q.format(quota)})`);
    else if (forecast.status === 'ok' && forecast.projectedPeriodTotal >= quota)
      lines.push(`${q.label}: projected to reach the quota${when} (${q.format(used)} so far of ${q.format(quota)})`);
    else lines.push(`${q.label}: near the quota (${q.format(used)} so far of ${q.format(quota)})`);
  }
  return lines;
}

/** The month's table (one row per quantity) and its warnings, under a title. Pure. */
export function usageSection(title: string, doc: UsageResponse): string[] {
  const { period } = doc.usage;
  const lines = [`${title}: ${day(period.start)} to ${day(period.end - 1)} (UTC month)`];
  lines.push(
    ...formatTable(
      ['quantity', 'so far', 'quota', 'forecast', 'exhausted at'],
      quantities.map((q) => {
        const forecast = doc.forecast[q.key];
        return [
          q.label,
          q.format(q.used(doc)),
          quotaText(q.quota(doc), q.format),
          forecastText(forecast, q.format),
          forecast.estimatedExhaustionAt === null ? null : utcTime(forecast.estimatedExhaustionAt),
        ];
      }),
    ),
  );
  const warnings = quotaWarnings(doc);
  lines.push(...(warnings.length === 0 ? ['Within quota.'] : warnings.map((w) => `Warning: ${w}`)));
  return lines;
}

/** Human rendering of the whole document. Pure. */
export function usageLines(doc: UsageDocument): string[] {
  const lines: string[] = [];
  if (doc.project) lines.push(...usageSection(`Project ${printable(doc.project.slug)}`, doc.project.usage));
  if (doc.workspace) {
    if (lines.length > 0) lines.push('');
    const ws = doc.workspace.usage;
    lines.push(...usageSection(`Workspace ${printable(doc.workspace.id)}`, ws));
    if (ws.projects.length > 0) {
      lines.push(
        '',
        ...formatTable(
          ['project', 'requests', 'transfer'],
          ws.projects.map((p) => [p.slug, formatCount(p.requests), formatBytes(p.transferBytes)]),
        ),
      );
    }
    if (ws.truncated) lines.push('The workspace has more than 1,000 projects: the totals cover the first 1,000.');
  }
  if (doc.workspaceError) lines.push('', `Workspace usage not shown: ${doc.workspaceError.code}: ${printable(doc.workspaceError.message)}`);
  return lines;
}

// The project to report: --project, else the directory's link, else none when --org names a workspace.
async function projectRef(ctx: CliContext, options: UsageOptions): Promise<string | undefined> {
  if (options.project?.trim()) return options.project.trim();
  const link = await readProjectLink(ctx.cwd);
  if (link) return link.projectId;
  if (options.org?.trim()) return undefined;
  throw new SvcError('SVC_CLI_PROJECT_NOT_LINKED', `No ${PROJECT_LINK_FILE} in ${ctx.cwd}; give --project <project> or --org <organization>`);
}

async function readProject(client: ApiClient, ref: string): Promise<NonNullable<UsageDocument['project']> & { organizationId: string }> {
  const [{ project }, usage] = await Promise.all([client.getProject(ref), client.projectUsage(ref)]);
  return { id: project.id, slug: project.slug, organizationId: project.organizationId, usage };
}

/** Fetch the usage documents `options` ask for. */
export async function readUsage(ctx: CliContext, options: UsageOptions): Promise<UsageDocument> {
  const ref = await projectRef(ctx, options);
  const { client } = await connect(ctx, { server: options.server });
  const project = ref === undefined ? null : await readProject(client, ref);
  const org = options.org?.trim() || project?.organizationId;
  let workspace: UsageDocument['workspace'] = null;
  let workspaceError: UsageDocument['workspaceError'] = null;
  if (org !== undefined) {
    try {
      workspace = { id: org, usage: await client.workspaceUsage(org) };
    } catch (error) {
      // Asked for by name: its failure is the command's. Implied by the project: show the project anyway.
      if (options.org?.trim() || !(error instanceof SvcError) || (error.status !== 403 && error.status !== 404)) throw error;
      workspaceError = { code: error.code, message: error.message };
    }
  }
  return { project: project && { id: project.id, slug: project.slug, usage: project.usage }, workspace, workspaceError };
}

/** The `svc usage` command. */
export const usageCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('usage')
      .description("show this month's requests and transfer against quotas, with forecast and warnings (project and workspace)")
      .option('--project <project>', 'project id or slug (default: the linked project in .svc/project.json)')
      .option('--org <organization>', "workspace (organization id or slug); default the project's organization")
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: UsageOptions) => {
        const doc = await readUsage(ctx, options);
        ctx.out.result(doc, () => usageLines(doc));
      });
  },
};
