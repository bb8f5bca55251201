// `svc logs [--follow] [--since] [--limit] [--stream] [--release]`: the project's app logs over the
// API; --follow keeps the connection open and prints new entries as the server streams them (NDJSON).
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { routePath } from '../../src/identity/contract.js';
import {
  LOG_STREAM_MEDIA_TYPE,
  logEntryWireSchema,
  logsResponseSchema,
  logStreamValues,
  releaseRoutes,
  type LogEntryWire,
} from '../../src/releases/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { printable } from '../format-table.js';
import type { HttpStream } from '../../src/core/http/http-client.js';
import { errorFromResponse, isOk, networkError } from '../http-request.js';
import { resolveProjectRef } from '../project-link.js';

interface LogsOptions {
  follow?: boolean;
  since?: string;
  limit?: string;
  stream?: string;
  release?: string;
  project?: string;
  server?: string;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since` as the API wants it: ISO time or epoch ms pass through; `30s`/`10m`/`2h`/`1d` become an ISO time before `now` (pure). */
export function resolveSince(value: string | undefined, now: number): string | undefined {
  if (value === undefined) return undefined;
  const relative = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (relative) return new Date(now - Number(relative[1]) * (UNIT_MS[relative[2] as string] as number)).toISOString();
  if (/^\d{1,16}$/.test(value.trim()) || !Number.isNaN(Date.parse(value))) return value.trim();
  throw new SvcError('SVC_USAGE', `--since must be an ISO time, epoch milliseconds or a duration such as 10m, 2h, 1d (got ${JSON.stringify(value)})`);
}

/** One human log line: time, release, stream and the text with control characters removed (pure). */
export function formatLogEntry(entry: LogEntryWire): string {
  return `${entry.time} ${entry.releaseId} ${entry.stream.padEnd(6)} | ${printable(entry.line)}`;
}

function buildQuery(ctx: CliContext, options: LogsOptions): Record<string, string | number | undefined> {
  if (options.stream !== undefined && !(logStreamValues as readonly string[]).includes(options.stream)) {
    throw new SvcError('SVC_USAGE', `--stream must be one of ${logStreamValues.join(', ')}`);
  }
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 10_000))
    throw new SvcError('SVC_USAGE', '--limit must be an integer from 1 to 10000');
  return { since: resolveSince(options.since, ctx.clock.now()), limit, stream: options.stream, releaseId: options.release };
}

async function logs(ctx: CliContext, options: LogsOptions): Promise<void> {
  const query = buildQuery(ctx, options);
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client, credentials } = await connect(ctx, { server: options.server });
  const path = routePath(releaseRoutes.logs, { id: ref.id });
  if (!options.follow) {
    const page = await client.request({ method: 'GET', path, query, schema: logsResponseSchema });
    ctx.out.result(page, () => (page.entries.length === 0 ? ['No log entries.'] : page.entries.map(formatLogEntry)));
    return;
  }
  const url = new URL(path, `${credentials.server}/`);
  for (const [key, value] of Object.entries({ ...query, follow: 'true' })) if (value !== undefined) url.searchParams.set(key, String(value));
  let response: HttpStream;
  try {
    // No end to a followed stream; only a silence longer than the server's keep-alives ends it.
    response = await ctx.http.open({
      method: 'GET',
      url,
      headers: { accept: LOG_STREAM_MEDIA_TYPE, authorization: `Bearer ${credentials.token as string}`, 'user-agent': 'svc-cli' },
      timeoutMs: null,
      idleTimeoutMs: 300_000,
    });
  } catch (error) {
    throw networkError(error, url);
  }
  if (!isOk(response.status))
    throw errorFromResponse(response.status, (await response.read(64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8'), response.header('retry-after'));
  await printStream(ctx, response);
}

// Print NDJSON entries as they arrive until the server ends the stream (or the user interrupts).
async function printStream(ctx: CliContext, response: HttpStream): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = '';
  const emit = (line: string): void => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // a keep-alive or a line this version does not understand
    }
    const entry = logEntryWireSchema.safeParse(json);
    if (!entry.success) return;
    ctx.stdout.write(ctx.json ? `${JSON.stringify(entry.data)}\n` : `${formatLogEntry(entry.data)}\n`);
  };
  try {
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n')) !== -1) {
        emit(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
      if (buffered.length > 1_000_000) buffered = '';
    }
  } catch (error) {
    throw new SvcError('SVC_NETWORK', `The log stream was interrupted (${(error as Error).message})`, { cause: error });
  }
  emit(buffered);
}

/** The `svc logs` command. */
export const logsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    program
      .command('logs')
      .description('print app logs of the linked project (oldest first); --follow streams new lines')
      .option('-f, --follow', 'keep streaming new entries until interrupted')
      .option('--since <time>', 'only entries since an ISO time, epoch ms, or a duration ago (30s, 10m, 2h, 1d)')
      .option('--limit <n>', 'at most this many entries (1-10000, server default 200)')
      .option('--stream <name>', `only one stream: ${logStreamValues.join(', ')}`)
      .option('--release <release-id>', 'only entries of this release')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((options: LogsOptions) => logs(ctx, options));
  },
};
