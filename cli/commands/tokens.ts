// `svc tokens list|create|revoke`: access tokens of the logged-in account. `create` prints the raw
// token exactly once (stdout, alone on its line, so `$(svc tokens create ...)` captures it).
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { permissions, type Permission, type TokenInfo } from '../../src/identity/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';

interface ServerOption {
  server?: string;
}

interface CreateOptions extends ServerOption {
  name: string;
  project?: string;
  permission?: string[];
  expiresInDays?: string;
}

/** Human table of tokens (never raw values; the server does not have them). */
export function tokenRows(tokens: readonly TokenInfo[]): string[] {
  if (tokens.length === 0) return ['No tokens.'];
  return formatTable(
    ['id', 'name', 'project', 'permissions', 'status', 'expires', 'last used'],
    tokens.map((t) => [t.id, t.name, t.projectId ?? 'all', t.permissions.join(','), t.status, t.expiresAt.slice(0, 10), t.lastUsedAt?.slice(0, 19) ?? 'never']),
  );
}

/** Validate the repeatable --permission flags (comma lists allowed) against the contract's list. */
export function parsePermissions(values: readonly string[] | undefined): Permission[] {
  const list = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (list.length === 0) throw new SvcError('SVC_USAGE', `Give at least one --permission (${permissions.join(', ')})`);
  const unknown = list.filter((p) => !(permissions as readonly string[]).includes(p));
  if (unknown.length > 0) throw new SvcError('SVC_USAGE', `Unknown permission ${unknown.join(', ')}; choose from ${permissions.join(', ')}`);
  return [...new Set(list)] as Permission[];
}

function parseDays(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > 365) throw new SvcError('SVC_USAGE', '--expires-in-days must be an integer from 1 to 365');
  return days;
}

async function createToken(ctx: CliContext, options: CreateOptions): Promise<void> {
  const input = {
    name: options.name,
    projectId: options.project,
    permissions: parsePermissions(options.permission),
    expiresInDays: parseDays(options.expiresInDays),
  };
  const { client } = await connect(ctx, { server: options.server });
  const created = await client.createToken(input);
  if (!ctx.json) {
    const t = created.token;
    ctx.stderr.write(
      `Created token ${t.id} "${t.name}" (${t.projectId ? `project ${t.projectId}` : 'account-wide'}; ${t.permissions.join(', ')}; expires ${t.expiresAt}).\n`,
    );
    ctx.stderr.write('Copy it now: it is shown only once.\n');
  }
  ctx.out.result(created, () => created.accessToken);
}

async function listTokens(ctx: CliContext, options: ServerOption): Promise<void> {
  const { client } = await connect(ctx, { server: options.server });
  const list = await client.listTokens();
  ctx.out.result(list, () => tokenRows(list.tokens));
}

async function revokeToken(ctx: CliContext, id: string, options: ServerOption): Promise<void> {
  const { client } = await connect(ctx, { server: options.server });
  const revoked = await client.revokeToken(id);
  ctx.out.result(revoked, () => `Revoked token ${revoked.token.id} "${revoked.token.name}".`);
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const serverHelp = 'control plane URL (default SVC_SERVER or the stored login)';

/** The `svc tokens` command group. */
export const tokensCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('tokens').description('create, list and revoke access tokens (e.g. for CI: SVC_TOKEN)');
    group
      .command('list', { isDefault: true })
      .description('list your tokens (default)')
      .option('--server <url>', serverHelp)
      .action((options: ServerOption) => listTokens(ctx, options));
    group
      .command('create')
      .description('create a token and print it once')
      .requiredOption('--name <name>', 'a label, e.g. "github-actions"')
      .option('--project <project>', 'limit the token to one project (id or slug); default account-wide')
      .option('--permission <permission>', `repeatable: ${permissions.join(', ')}`, collect)
      .option('--expires-in-days <days>', 'lifetime in days (1-365, server default 90)')
      .option('--server <url>', serverHelp)
      .action((options: CreateOptions) => createToken(ctx, options));
    group
      .command('revoke <token-id>')
      .description('revoke a token by id')
      .option('--server <url>', serverHelp)
      .action((id: string, options: ServerOption) => revokeToken(ctx, id, options));
  },
};
