// `svc previews [list]`, `svc previews open <number>`, `svc previews delete <number> [--yes]` and
// `svc previews settings [--data empty|production] [--yes]`: the preview environments of the linked
// project's pull requests (docs/previews.md). Previews start and stop on GitHub events; these
// commands look at them, open one, tear one down early, and choose where a new preview's data comes from.
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { routePath } from '../../src/identity/contract.js';
import {
  deletePreviewResponseSchema,
  previewDataSourceSchema,
  previewListResponseSchema,
  previewResponseSchema,
  previewRoutes,
  previewSettingsResponseSchema,
  type Preview,
} from '../../src/previews/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import { confirmAction } from '../confirm-action.js';
import type { CliContext } from '../context.js';
import { openInBrowser } from '../open-in-browser.js';
import { dataSourceSentence, parsePullRequestNumber, previewListLines, previewSettingsLines, productionDataWarning } from '../preview-text.js';
import { resolveProjectRef } from '../project-link.js';

interface PreviewOptions {
  project?: string;
  server?: string;
}

/** What `svc previews open --json` prints (it never opens a browser). */
export interface OpenPreviewDocument {
  url: string;
  number: number;
  state: Preview['state'];
  previewProjectId: string;
  opened: boolean;
}

async function target(ctx: CliContext, options: PreviewOptions) {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  return { ref, client };
}

function pullRequestNumber(text: string): number {
  const number = parsePullRequestNumber(text);
  if (number === null) throw new SvcError('SVC_USAGE', `"${text}" is not a pull request number (e.g. 12 or #12).`);
  return number;
}

async function list(ctx: CliContext, options: PreviewOptions): Promise<void> {
  const { ref, client } = await target(ctx, options);
  const answer = await client.request({ method: 'GET', path: routePath(previewRoutes.previews, { id: ref.id }), schema: previewListResponseSchema });
  ctx.out.result(answer, () => previewListLines(answer, ctx.clock.now()));
}

async function open(ctx: CliContext, text: string, options: PreviewOptions & { print?: boolean }): Promise<void> {
  const number = pullRequestNumber(text);
  const { ref, client } = await target(ctx, options);
  const { preview } = await client.request({
    method: 'GET',
    path: routePath(previewRoutes.preview, { id: ref.id, number: String(number) }),
    schema: previewResponseSchema,
  });
  const doc: OpenPreviewDocument = { url: preview.url, number: preview.number, state: preview.state, previewProjectId: preview.projectId, opened: false };
  if (preview.state === 'waiting')
    ctx.out.note(`Preview #${number} has no release yet: it answers once the preview workflow has uploaded ${preview.headSha.slice(0, 7)}.`);
  if (preview.state === 'sleeping') ctx.out.note(`Preview #${number} is asleep; the first request starts it again, so the page may take a few seconds.`);
  if (ctx.json || options.print) return ctx.out.result(doc, () => preview.url);
  const failure = await openInBrowser(ctx, preview.url);
  if (failure === undefined) return ctx.out.result({ ...doc, opened: true }, () => `Opened ${preview.url}`);
  ctx.out.note(`Not opening a browser (${failure}); open the URL yourself:`);
  ctx.out.result(doc, () => preview.url);
}

async function remove(ctx: CliContext, text: string, options: PreviewOptions & { yes?: boolean }): Promise<void> {
  const number = pullRequestNumber(text);
  const { ref, client } = await target(ctx, options);
  const path = routePath(previewRoutes.preview, { id: ref.id, number: String(number) });
  // The question names the preview's URL, and an unknown number fails before anything is asked.
  await confirmAction(
    ctx,
    async () => {
      const { preview } = await client.request({ method: 'GET', path, schema: previewResponseSchema });
      return `Tear down preview #${number} (${preview.url})? Its app stops and its data is deleted.`;
    },
    { yes: options.yes },
  );
  const answer = await client.request({ method: 'DELETE', path, schema: deletePreviewResponseSchema, idempotent: false });
  ctx.out.result(answer, () => [
    `Tore down preview #${answer.number}: its app is stopped and its data deleted.`,
    '  The pull request stays open; its next push deploys a new preview.',
  ]);
}

async function settings(ctx: CliContext, options: PreviewOptions & { data?: string; yes?: boolean }): Promise<void> {
  const { ref, client } = await target(ctx, options);
  const path = routePath(previewRoutes.settings, { id: ref.id });
  if (options.data === undefined) {
    const answer = await client.request({ method: 'GET', path, schema: previewSettingsResponseSchema });
    return ctx.out.result(answer, () => previewSettingsLines(answer.settings));
  }
  const parsed = previewDataSourceSchema.safeParse(options.data);
  if (!parsed.success) throw new SvcError('SVC_USAGE', `--data takes "empty" or "production", not "${options.data}".`);
  const data = parsed.data;
  if (data === 'production') {
    for (const line of productionDataWarning()) ctx.out.note(line);
    await confirmAction(ctx, "Copy production's data into every new preview?", { yes: options.yes });
  }
  const answer = await client.request({ method: 'PUT', path, body: { data }, schema: previewSettingsResponseSchema, idempotent: true });
  ctx.out.result(answer, () => [`Preview data: ${answer.settings.data}`, `  ${dataSourceSentence(answer.settings.data)} Existing previews keep theirs.`]);
}

/** The `svc previews` command group. */
export const previewsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('previews').description('preview environments of pull requests (see docs/previews.md)');
    const common = (cmd: Command) =>
      cmd
        .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
        .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)');
    common(group.command('list', { isDefault: true }).description("the project's previews with state, commit, URL and last request (default)")).action(
      (options: PreviewOptions) => list(ctx, options),
    );
    common(group.command('open <number>').description("open a pull request's preview in the browser"))
      .option('--print', 'print the URL instead of opening a browser')
      .action((number: string, options: PreviewOptions & { print?: boolean }) => open(ctx, number, options));
    common(group.command('delete <number>').description('tear a preview down now: its app stops and its data is deleted'))
      .option('--yes', 'do not ask for confirmation (required with --json or without a terminal)')
      .action((number: string, options: PreviewOptions & { yes?: boolean }) => remove(ctx, number, options));
    common(group.command('settings').description("show or set where a new preview's data comes from"))
      .option('--data <source>', '"empty" (migrations only, the default) or "production" (a copy of real user data)')
      .option('--yes', 'confirm --data production without being asked (required with --json or without a terminal)')
      .action((options: PreviewOptions & { data?: string; yes?: boolean }) => settings(ctx, options));
  },
};
