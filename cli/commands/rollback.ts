// `svc rollback <release-id> [--restore-data --confirm="restore <project>"]`: code-only by default
// (the target must pass health against the current database); --restore-data also restores the
// pre-deploy snapshot, after saying exactly what would be lost. The server checks and audits both.
// It asks the server to answer once the rollback started (wait=false) and follows the target's steps
// as phases; an older server, or a placed project's rollback, answers when done instead.
import type { Command } from 'commander';
import { SvcError, errorCodes, type ErrorCode } from '../../src/core/errors.js';
import { projectResponseSchema, projectRoutes } from '../../src/projects/contract.js';
import { routePath } from '../../src/identity/contract.js';
import {
  previewNeedsPlacement,
  releaseListResponseSchema,
  releaseRoutes,
  restoreConfirmation,
  restorePreview,
  rollbackResponseSchema,
  type PreviewPlacement,
  type Release,
  type RollbackOutcome,
  type RollbackResponse,
} from '../../src/releases/contract.js';
import { ApiClient, connect } from '../api-client.js';
import { followRollback } from '../follow-release.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatPairs } from '../output.js';
import { resolveProjectRef } from '../project-link.js';
import { placementSchema } from '../../src/nodes/contract.js';

interface RollbackOptions {
  restoreData?: boolean;
  confirm?: string;
  project?: string;
  server?: string;
}

// A rollback starts the target and waits for its health route: allow for a slow app.
const ROLLBACK_TIMEOUT_MS = 300_000;

async function rollback(ctx: CliContext, releaseId: string, options: RollbackOptions): Promise<void> {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client: base, credentials } = await connect(ctx, { server: options.server });
  const client = new ApiClient({ ...base.options, timeoutMs: ROLLBACK_TIMEOUT_MS });
  const restoreData = options.restoreData === true;
  let confirm = options.confirm;
  if (restoreData) {
    const slug =
      ref.slug ?? (await client.request({ method: 'GET', path: routePath(projectRoutes.project, { id: ref.id }), schema: projectResponseSchema })).project.slug;
    const phrase = restoreConfirmation(slug);
    if (confirm !== phrase) {
      const list = await client.request({ method: 'GET', path: routePath(releaseRoutes.releases, { id: ref.id }), schema: releaseListResponseSchema });
      const placement = previewNeedsPlacement(list, releaseId) ? await placementOf(client, ref.id) : null;
      const preview = restorePreview(list, releaseId, slug, placement);
      for (const line of preview.lines) ctx.out.note(line);
      if (preview.possible && confirm === undefined && canPrompt(ctx)) {
        ctx.stderr.write(`Type "${phrase}" to confirm: `);
        confirm = (await readLine(ctx.stdin)).trim();
      } else if (preview.possible) {
        ctx.out.note(`To confirm, run again with --confirm="${phrase}"${confirm === undefined ? '' : ' (the phrase given does not match)'}.`);
      }
    }
  }
  // The server decides (and answers SVC_RELEASE_CONFIRMATION_MISMATCH / SVC_RESTORE_NOT_ALLOWED); never retried.
  const phases = ctx.out.phases();
  phases.phase('rollback', { releaseId });
  const started = await client.request({
    method: 'POST',
    path: routePath(releaseRoutes.rollback, { id: ref.id }),
    query: { wait: 'false' },
    body: { releaseId, restoreData, ...(confirm === undefined ? {} : { confirm }) },
    schema: rollbackResponseSchema,
    idempotent: false,
  });
  let answer: RollbackResponse = { release: started.release, previousReleaseId: started.previousReleaseId, restoredData: started.restoredData };
  if (started.running === true) {
    const target = { server: credentials.server, token: credentials.token as string, client, projectId: ref.id, release: started.release, phases };
    const end = await followRollback(ctx, target).catch((error: unknown) => {
      if (!(error instanceof SvcError)) throw error;
      throw new SvcError(error.code, `${error.message}; the rollback may still finish on the server (svc releases shows which release is active)`, {
        cause: error,
        details: { ...error.details, releaseId },
      });
    });
    const failure = rollbackFailure(end.release, end.rollback);
    if (failure) throw failure;
    answer = { ...answer, release: end.release };
  }
  ctx.out.result(answer, () => rollbackLines(ctx, answer));
}

/** The error a followed rollback ends with, as the synchronous answer would have carried it; null when it completed. */
function rollbackFailure(release: Release, outcome: RollbackOutcome | undefined): SvcError | null {
  if (outcome ? outcome.outcome === 'complete' : release.status === 'active') return null;
  const details = { releaseId: release.id };
  const error = outcome?.error;
  if (!error) return new SvcError('SVC_RELEASE_FAILED', `The rollback to ${release.id} did not make it active (status ${release.status})`, { details });
  if (Object.hasOwn(errorCodes, error.code)) return new SvcError(error.code as ErrorCode, error.message, { details });
  return new SvcError('SVC_REMOTE_ERROR', `${error.code}: ${error.message}`, { details: { ...details, remoteCode: error.code } });
}

/** Human summary of a finished rollback (pure apart from colour). */
export function rollbackLines(ctx: Pick<CliContext, 'out'>, answer: RollbackResponse): string[] {
  return [
    `${ctx.out.paint('green')('✓')} Release ${answer.release.id} is active again${answer.previousReleaseId ? ` (was ${answer.previousReleaseId})` : ''}`,
    ...formatPairs([
      ['Status', answer.release.status],
      ['Database', answer.restoredData ? 'restored from the pre-deploy snapshot; newer writes are gone' : 'unchanged (code-only rollback)'],
    ]).map((line) => `  ${line}`),
  ];
}

/** The project's runner node, or null when it is not placed (or the caller may not see its placement). */
async function placementOf(client: ApiClient, projectId: string): Promise<PreviewPlacement | null> {
  try {
    const placement = await client.request({ method: 'GET', path: routePath('/api/projects/:id/placement', { id: projectId }), schema: placementSchema });
    return { nodeId: placement.nodeId };
  } catch {
    // Not placed (409 SVC_NODE_NOT_PLACED) or not visible: the preview then says no snapshot is kept.
    return null;
  }
}

function canPrompt(ctx: CliContext): boolean {
  return !ctx.json && ctx.stdin.isTTY === true && ctx.stderr.isTTY === true;
}

// One line from standard input (bounded), for the interactive confirmation prompt.
async function readLine(stdin: CliContext['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const end = text.indexOf('\n');
    if (end !== -1) return text.slice(0, end);
    if (text.length > 1000) break;
  }
  return text;
}

/** The `svc rollback` command. */
export const rollbackCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('rollback <release-id>')
      .description('make an inactive release active again (code only; --restore-data also restores the pre-deploy database snapshot)')
      .option(
        '--restore-data',
        'also restore the database snapshot taken before the current release (only the immediately previous release; newer writes are lost)',
      )
      .option('--confirm <phrase>', 'with --restore-data: exactly "restore <project-slug>"')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((releaseId: string, options: RollbackOptions) => rollback(ctx, releaseId, options));
  },
};
