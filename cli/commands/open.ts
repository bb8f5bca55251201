// `svc open [page] [--console] [--project <p>] [--print]`: open the project's app URL, or its page in
// the console (`--console`, or a page name such as `releases`), in the browser. With --json, --print,
// or when there is no opener (no graphical session, opener missing or failing) it prints the URL.
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { routePath } from '../../src/identity/contract.js';
import type { Project } from '../../src/projects/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { openInBrowser } from '../open-in-browser.js';
import { resolveProjectRef } from '../project-link.js';

/** The console's pages of a project (web/src/routes.tsx); `overview` is the project's own page. */
export const consolePages = ['overview', 'releases', 'canary', 'logs', 'secrets', 'backups', 'domains', 'github', 'recovery', 'activity', 'settings'] as const;
export type ConsolePage = (typeof consolePages)[number];

const CONSOLE_PROJECT = '/projects/:slug';

/** What to open: the app itself, or one console page of the project. */
export type OpenTarget = { kind: 'app' } | { kind: 'console'; page: ConsolePage };

/** Read the optional page argument and --console into a target; an unknown page is SVC_USAGE. Pure. */
export function parseOpenTarget(page: string | undefined, consoleFlag: boolean | undefined): OpenTarget {
  if (page === undefined) return consoleFlag ? { kind: 'console', page: 'overview' } : { kind: 'app' };
  const known = consolePages.find((p) => p === page.trim().toLowerCase());
  if (!known) throw new SvcError('SVC_USAGE', `Unknown console page "${page}"; choose from ${consolePages.join(', ')}`);
  return { kind: 'console', page: known };
}

/** The URL for a target: the project's app URL, or the console (served at the server's root). Pure. */
export function openUrl(target: OpenTarget, project: Pick<Project, 'slug' | 'status'>, server: string): string {
  if (target.kind === 'app') return project.status.url;
  const page = routePath(CONSOLE_PROJECT, { slug: project.slug });
  return `${server}${target.page === 'overview' ? page : `${page}/${target.page}`}`;
}

interface OpenOptions {
  console?: boolean;
  project?: string;
  print?: boolean;
  server?: string;
}

/** What `svc open --json` prints (it never opens a browser). */
export interface OpenDocument {
  url: string;
  target: 'app' | 'console';
  page: ConsolePage | null;
  project: { id: string; slug: string };
  opened: boolean;
}

async function open(ctx: CliContext, page: string | undefined, options: OpenOptions): Promise<void> {
  const target = parseOpenTarget(page, options.console);
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client, credentials } = await connect(ctx, { server: options.server });
  const { project } = await client.getProject(ref.id);
  const url = openUrl(target, project, credentials.server);
  const doc: OpenDocument = {
    url,
    target: target.kind,
    page: target.kind === 'console' ? target.page : null,
    project: { id: project.id, slug: project.slug },
    opened: false,
  };
  if (ctx.json || options.print) return ctx.out.result(doc, () => url);
  const failure = await openInBrowser(ctx, url);
  if (failure === undefined) return ctx.out.result({ ...doc, opened: true }, () => `Opened ${url}`);
  ctx.out.note(`Not opening a browser (${failure}); open the URL yourself:`);
  ctx.out.result(doc, () => url);
}

/** The `svc open` command. */
export const openCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('open [page]')
      .description(`open the project's app in the browser, or a console page (--console, or a page: ${consolePages.join(', ')})`)
      .option('--console', "open the project's page in the console instead of the app")
      .option('--project <project>', 'project id or slug (default: the linked project in .svc/project.json)')
      .option('--print', 'print the URL instead of opening a browser')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((page: string | undefined, options: OpenOptions) => open(ctx, page, options));
  },
};
