// `svc canary [--project] [--json]`: canary rollouts of the linked project, newest first, with each
// stage's traffic percentage, samples, error rate, p95 and the failure reason (GET /api/projects/:id/canary).
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { CANARY_HEADER, DEFAULT_CANARY_POLICY, canaryReportResponseSchema, canaryRoutePaths, type CanaryReportResponse } from '../../src/canary/contract.js';
import { readDeployConfig } from '../../src/artifacts/index.js';
import type { HttpClient, HttpRequest } from '../../src/core/http/http-client.js';
import { UPLOAD_MEDIA_TYPE } from '../../src/releases/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { resolveProjectRef } from '../project-link.js';

interface CanaryOptions {
  project?: string;
  server?: string;
}

/** Human lines of a canary report (pure). */
export function canaryRows(report: CanaryReportResponse): string[] {
  if (report.runs.length === 0) return ['No canary rollouts yet. Run one with `svc deploy --canary` or a `canary` object in svc.deploy.json.'];
  const lines: string[] = [];
  for (const run of report.runs) {
    const failure = run.failure ? ` — ${run.failure.code}: ${run.failure.message}` : '';
    lines.push(`${run.id}  release ${run.releaseId} (baseline ${run.baselineReleaseId ?? '-'})  ${run.state}  started ${run.startedAt}${failure}`);
    lines.push(`  policy: error rate ≤ ${run.policy.maximumErrorRate}, p95 ≤ ${run.policy.maximumP95Ms} ms`);
    if (run.stages.length > 0) {
      const table = formatTable(
        ['stage', 'traffic', 'state', 'samples', 'errors', 'p95', 'reason'],
        run.stages.map((s) => [
          String(s.index + 1),
          `${s.trafficPercent}%`,
          s.state,
          String(s.samples),
          `${(s.errorRate * 100).toFixed(2)}%`,
          `${Math.round(s.p95Ms)} ms`,
          s.reason ?? '',
        ]),
      );
      lines.push(...table.map((line) => `  ${line}`));
    }
    lines.push('');
  }
  return lines.slice(0, -1);
}

/** `svc canary`. */
export const canaryCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('canary')
      .description('show canary rollouts of the project: stages, samples, error rate, p95 and failures')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: CanaryOptions) => {
        const ref = await resolveProjectRef(ctx.cwd, options.project);
        const { client } = await connect(ctx, { server: options.server });
        const report = await client.request({ method: 'GET', path: routePath(canaryRoutePaths.report, { id: ref.id }), schema: canaryReportResponseSchema });
        ctx.out.result(report, () => canaryRows(report));
      });
  },
};

/**
 * `svc deploy --canary`: a client that adds the canary header to the artifact upload (the deploy then
 * follows the release's events through every stage), with a longer bound for a server that holds it.
 */
export function canaryHttp(base: HttpClient, appDir: string): HttpClient {
  const forCanary = async (req: HttpRequest): Promise<HttpRequest> => {
    const upload = req.method === 'POST' && req.headers?.['content-type'] === UPLOAD_MEDIA_TYPE;
    if (!upload) return req;
    // The stages add their durations to the upload's own time bound (health start-up, transfer).
    const config = await readDeployConfig(appDir).catch(() => null);
    const stages = config?.canary?.stages ?? DEFAULT_CANARY_POLICY.stages;
    const extraMs = stages.reduce((sum, s) => sum + s.durationMs, 0) + 60_000;
    return { ...req, headers: { ...req.headers, [CANARY_HEADER]: '1' }, timeoutMs: extraMs + 300_000 };
  };
  return {
    send: async (req) => base.send(await forCanary(req)),
    open: async (req) => base.open(await forCanary(req)),
  };
}
