// `svc secrets` (list, the default), `svc secrets set <NAME>` (value read from standard input, never
// an argument) and `svc secrets delete <NAME>`. Values are write-only: nothing prints them back.
// `--preview` works on the preview scope: what pull-request previews get instead of production.
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { SvcError } from '../../src/core/errors.js';
import {
  checkSecretName,
  checkSecretValue,
  deleteSecretResponseSchema,
  secretListResponseSchema,
  secretRoutes,
  setSecretResponseSchema,
  type SecretListResponse,
  type SecretScope,
} from '../../src/secrets/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { resolveProjectRef } from '../project-link.js';

interface SecretsOptions {
  project?: string;
  server?: string;
  keepTrailingNewline?: boolean;
  preview?: boolean;
}

/** What previews get, said once for the help of every subcommand. */
const PREVIEW_HELP = 'the preview scope: given to pull-request previews only (previews never get production secrets)';

/** Most bytes read from standard input for one value (the server limit is 64 KiB). */
const MAX_STDIN_BYTES = 256 * 1024;

/** Human table of one scope's secret names (pure). */
export function secretRows(list: SecretListResponse, scope: SecretScope = 'production'): string[] {
  if (list.secrets.length === 0)
    return scope === 'production'
      ? ['No secrets. Add one with `printf %s "$VALUE" | svc secrets set NAME`.']
      : ['No preview secrets. Pull-request previews get none (never production secrets); add one with `printf %s "$VALUE" | svc secrets set --preview NAME`.'];
  const table = formatTable(
    ['name', 'updated', 'created'],
    list.secrets.map((s) => [s.name, s.updatedAt, s.createdAt]),
  );
  return scope === 'production' ? table : ['Preview secrets (given to pull-request previews only):', ...table];
}

/** The scope a command works on (pure). */
function scopeOf(options: SecretsOptions): SecretScope {
  return options.preview === true ? 'preview' : 'production';
}

/**
 * The value from standard input: UTF-8 exactly as given, except one trailing newline (what `echo`
 * adds) unless --keep-trailing-newline. Refuses an interactive terminal so a value is never typed
 * into the shell history by accident, and input that cannot become an environment variable.
 */
export async function readSecretValue(stdin: CliContext['stdin'], keepTrailingNewline: boolean): Promise<string> {
  if (stdin.isTTY) throw new SvcError('SVC_USAGE', 'Pipe the value on standard input, e.g. `printf %s "$TOKEN" | svc secrets set NAME`.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) throw new SvcError('SVC_SECRET_VALUE_INVALID', 'The value exceeds 64 KiB.');
    chunks.push(bytes);
  }
  let value: string;
  try {
    value = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new SvcError('SVC_SECRET_VALUE_INVALID', 'The value on standard input is not valid UTF-8.');
  }
  if (!keepTrailingNewline) value = value.replace(/\r?\n$/, '');
  const problem = checkSecretValue(value);
  if (problem === 'nul')
    throw new SvcError('SVC_SECRET_VALUE_INVALID', 'The value contains a NUL byte, which an environment variable cannot carry; encode it (e.g. base64).');
  if (problem !== null) throw new SvcError('SVC_SECRET_VALUE_INVALID', problem === 'too-large' ? 'The value exceeds 64 KiB.' : 'The value is not valid UTF-8.');
  return value;
}

function checkName(name: string): void {
  const problem = checkSecretName(name);
  if (problem === 'invalid')
    throw new SvcError('SVC_SECRET_NAME_INVALID', `"${name}" is not a valid secret name (letters, digits, underscore; not starting with a digit).`);
  if (problem === 'reserved') throw new SvcError('SVC_SECRET_NAME_RESERVED', `${name} is controlled by the platform.`);
}

async function target(ctx: CliContext, options: SecretsOptions) {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  return { ref, client };
}

/** The `svc secrets` command group. */
export const secretsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program
      .command('secrets')
      .description('encrypted secrets of the linked project (values are write-only)')
      .addHelpText(
        'after',
        '\nProduction secrets (the default) go to the project itself. Pull-request previews get only the\n' +
          'preview secrets (--preview) and never production secrets.',
      );
    const common = (cmd: Command) =>
      cmd
        .option('--preview', PREVIEW_HELP)
        .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
        .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)');
    common(group.command('list', { isDefault: true }).description('secret names and timestamps (default)')).action(async (options: SecretsOptions) => {
      const scope = scopeOf(options);
      const { ref, client } = await target(ctx, options);
      const list = await client.request({
        method: 'GET',
        path: routePath(secretRoutes.secrets, { id: ref.id }),
        query: { scope },
        schema: secretListResponseSchema,
      });
      ctx.out.result(list, () => secretRows(list, scope));
    });
    common(group.command('set <NAME>').description('create or replace a secret; the value is read from standard input'))
      .option('--keep-trailing-newline', 'keep a final newline of the input (removed by default)')
      .action(async (name: string, options: SecretsOptions) => {
        checkName(name);
        const scope = scopeOf(options);
        const value = await readSecretValue(ctx.stdin, options.keepTrailingNewline === true);
        const { ref, client } = await target(ctx, options);
        const answer = await client.request({
          method: 'PUT',
          path: routePath(secretRoutes.secret, { id: ref.id, name }),
          query: { scope },
          body: { value },
          schema: setSecretResponseSchema,
          idempotent: true,
        });
        ctx.out.result(answer, () => [
          scope === 'production'
            ? `${answer.created ? 'Created' : 'Updated'} secret ${name}. It applies on the next release or supervised restart.`
            : `${answer.created ? 'Created' : 'Updated'} preview secret ${name}. Pull-request previews get it on their next release or supervised restart.`,
        ]);
      });
    common(group.command('delete <NAME>').description('delete a secret (applies on the next release or supervised restart)')).action(
      async (name: string, options: SecretsOptions) => {
        const scope = scopeOf(options);
        const { ref, client } = await target(ctx, options);
        const answer = await client.request({
          method: 'DELETE',
          path: routePath(secretRoutes.secret, { id: ref.id, name }),
          query: { scope },
          schema: deleteSecretResponseSchema,
          idempotent: false,
        });
        ctx.out.result(answer, () => [scope === 'production' ? `Deleted secret ${name}.` : `Deleted preview secret ${name}.`]);
      },
    );
  },
};
