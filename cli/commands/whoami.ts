// `svc whoami [--server <url>]`: who the CLI acts as. Reads GET /api/me (the account and its
// organizations) and GET /api/tokens/current (the token's scope, permissions and expiry); --json
// prints the combined document. Without a token it fails with SVC_NOT_LOGGED_IN before any request.
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import type { MeResponse, TokenInfo } from '../../src/identity/contract.js';
import { connect, type ApiClient } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import type { ResolvedCredentials } from '../credentials.js';
import { printable } from '../format-table.js';
import { formatPairs } from '../output.js';
import { relativeTime } from '../relative-time.js';

/** The project a project-scoped token is limited to (slug and name when the token may read it). */
export interface TokenProject {
  id: string;
  slug: string | null;
  name: string | null;
}

/** What `svc whoami --json` prints. */
export interface WhoamiDocument {
  server: string;
  /** Where the server and the token came from (flag, env, config, default / env, config). */
  source: { server: ResolvedCredentials['serverSource']; token: ResolvedCredentials['tokenSource'] };
  user: MeResponse['user'];
  organizations: MeResponse['organizations'];
  token: TokenInfo;
  /** null for an account-wide token. */
  project: TokenProject | null;
}

const SOURCE_TEXT: Record<ResolvedCredentials['serverSource'] | ResolvedCredentials['tokenSource'], string> = {
  flag: '--server',
  env: 'environment',
  config: 'stored login',
  default: 'default',
  none: 'none',
};

/** The human rendering: one labelled line per fact. Pure. */
export function whoamiLines(doc: WhoamiDocument, now: number): string[] {
  const name = doc.user.name ? ` (${printable(doc.user.name)})` : '';
  const scope = doc.project
    ? `project ${printable(doc.project.slug ?? doc.project.id)}${doc.project.slug ? ` (${doc.project.id})` : ''}`
    : 'all projects (account-wide)';
  const status = doc.token.status === 'active' ? '' : ` [${doc.token.status}]`;
  const orgs = doc.organizations.map((o) => `${printable(o.slug)} (${o.role})`).join(', ') || 'none';
  return formatPairs([
    ['Server', `${printable(doc.server)} (${SOURCE_TEXT[doc.source.server]})`],
    ['Account', `${printable(doc.user.email)}${name}`],
    ['Token', `${printable(doc.token.id)} "${printable(doc.token.name)}"${status} (${SOURCE_TEXT[doc.source.token]})`],
    ['Scope', scope],
    ['Permissions', doc.token.permissions.join(', ')],
    ['Expires', `${doc.token.expiresAt} (${relativeTime(Date.parse(doc.token.expiresAt), now)})`],
    ['Organizations', orgs],
  ]);
}

// A project-scoped token says only the project id; its slug and name need `read` on the project.
async function tokenProject(client: ApiClient, token: TokenInfo): Promise<TokenProject | null> {
  if (token.projectId === null) return null;
  if (!token.permissions.includes('read')) return { id: token.projectId, slug: null, name: null };
  try {
    const { project } = await client.getProject(token.projectId);
    return { id: project.id, slug: project.slug, name: project.name };
  } catch (error) {
    if (error instanceof SvcError && (error.status === 403 || error.status === 404)) return { id: token.projectId, slug: null, name: null };
    throw error;
  }
}

/** Read the account and the presenting token from the server. */
export async function whoami(ctx: Pick<CliContext, 'home' | 'env' | 'http'>, server: string | undefined): Promise<WhoamiDocument> {
  const { client, credentials } = await connect(ctx, { server });
  const [me, current] = await Promise.all([client.me(), client.currentToken()]);
  return {
    server: credentials.server,
    source: { server: credentials.serverSource, token: credentials.tokenSource },
    user: me.user,
    organizations: me.organizations,
    token: current.token,
    project: await tokenProject(client, current.token),
  };
}

/** The `svc whoami` command. */
export const whoamiCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('whoami')
      .description('show the server, account and token the CLI uses (scope, permissions, expiry)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: { server?: string }) => {
        const doc = await whoami(ctx, options.server);
        ctx.out.result(doc, () => whoamiLines(doc, ctx.clock.now()));
      });
  },
};
