// `svc backups` (list), `create`, `download <id> [--output file]`, `restore <id> --confirm="restore
// <slug>"`, `delete <id>`, `schedule --every <minutes> [--keep n] [--max-age-days d] | --off`.
import { open, rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { routePath } from '../../src/identity/contract.js';
import { SvcError } from '../../src/core/errors.js';
import { formatBytes } from '../../src/core/format-bytes.js';
import {
  backupListResponseSchema,
  backupResponseSchema,
  backupRestorePhrase,
  backupRoutes,
  deleteBackupResponseSchema,
  restoreBackupResponseSchema,
  scheduleResponseSchema,
  type BackupListResponse,
} from '../../src/backups/contract.js';
import { ApiClient, connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { HttpFailure, type HttpStream } from '../../src/core/http/http-client.js';
import { errorFromResponse, isOk, networkError } from '../http-request.js';
import { resolveProjectRef } from '../project-link.js';

interface BackupOptions {
  project?: string;
  server?: string;
}

/** Human table of backups and the schedule line (pure). */
export function backupRows(list: BackupListResponse): string[] {
  const schedule = list.schedule
    ? `Schedule: every ${list.schedule.intervalMinutes} min, keep ${list.schedule.keep}, at most ${list.schedule.maxAgeDays} days; next ${list.schedule.nextDueAt}${list.schedule.overdue ? ' (OVERDUE)' : ''}`
    : 'Schedule: off (svc backups schedule --every <minutes>)';
  if (list.backups.length === 0) return ['No backups yet.', schedule];
  return [
    ...formatTable(
      ['id', 'kind', 'created', 'size', 'database'],
      list.backups.map((b) => [b.id, b.kind, b.createdAt, formatBytes(b.sizeBytes), b.hadDatabase ? formatBytes(b.databaseBytes) : 'none']),
    ),
    '',
    schedule,
  ];
}

async function target(ctx: CliContext, options: BackupOptions) {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const connection = await connect(ctx, { server: options.server });
  return { ref, ...connection, client: new ApiClient({ ...connection.client.options, timeoutMs: 600_000 }) };
}

/** Stream a decrypted backup into `file` (temp file, then rename: never a partial file under that name). */
async function download(ctx: CliContext, backupId: string, options: BackupOptions & { output?: string }): Promise<void> {
  const { ref, credentials } = await target(ctx, options);
  const url = new URL(routePath(backupRoutes.download, { id: ref.id, backupId }), `${credentials.server}/`);
  let response: HttpStream;
  try {
    // No bound on the whole download (a large database on a slow link); a stall of 5 minutes ends it.
    response = await ctx.http.open({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${credentials.token ?? ''}`, 'user-agent': 'svc-cli' },
      timeoutMs: null,
      idleTimeoutMs: 300_000,
    });
  } catch (error) {
    throw networkError(error, url);
  }
  if (!isOk(response.status))
    throw errorFromResponse(response.status, (await response.read(64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8'), response.header('retry-after'));
  const file = resolve(ctx.cwd, options.output ?? `${backupId}.db`);
  const temp = `${file}.part`;
  const handle = await open(temp, 'w', 0o600);
  let bytes = 0;
  try {
    for await (const chunk of response.body) {
      await handle.write(chunk);
      bytes += chunk.length;
    }
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error instanceof HttpFailure ? networkError(error, url) : error;
  }
  await handle.close();
  await rename(temp, file);
  ctx.out.result({ file, bytes }, () => [`Saved ${formatBytes(bytes)} SQLite database to ${file}.`]);
}

/** The `svc backups` command group. */
export const backupsCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('backups').description('encrypted backups of the project database');
    const common = (cmd: Command) =>
      cmd
        .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
        .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)');
    common(group.command('list', { isDefault: true }).description('backups and the schedule (default)')).action(async (options: BackupOptions) => {
      const { ref, client } = await target(ctx, options);
      const list = await client.request({ method: 'GET', path: routePath(backupRoutes.backups, { id: ref.id }), schema: backupListResponseSchema });
      ctx.out.result(list, () => backupRows(list));
    });
    common(group.command('create').description('take a backup now (waits for a running deploy)')).action(async (options: BackupOptions) => {
      const { ref, client } = await target(ctx, options);
      const answer = await client.request({
        method: 'POST',
        path: routePath(backupRoutes.backups, { id: ref.id }),
        schema: backupResponseSchema,
        idempotent: false,
      });
      ctx.out.result(answer, () => [`Backup ${answer.backup.id} taken (${formatBytes(answer.backup.sizeBytes)} encrypted).`]);
    });
    common(group.command('download <backup-id>').description('download a backup as a plain SQLite file'))
      .option('--output <file>', 'where to write it (default <backup-id>.db)')
      .action((backupId: string, options: BackupOptions & { output?: string }) => download(ctx, backupId, options));
    common(group.command('restore <backup-id>').description('restore a backup into the project database (the app is stopped and started again)'))
      .option('--confirm <phrase>', 'exactly "restore <project-slug>"')
      .action(async (backupId: string, options: BackupOptions & { confirm?: string }) => {
        const { ref, client } = await target(ctx, options);
        if (options.confirm === undefined) {
          const slug = ref.slug ?? (await client.getProject(ref.id)).project.slug;
          throw new SvcError(
            'SVC_BACKUP_CONFIRMATION_MISMATCH',
            `Writes made after the backup are lost. Run again with --confirm="${backupRestorePhrase(slug)}".`,
          );
        }
        ctx.out.phases().phase('restore');
        const answer = await client.request({
          method: 'POST',
          path: routePath(backupRoutes.restore, { id: ref.id, backupId }),
          body: { confirm: options.confirm },
          schema: restoreBackupResponseSchema,
          idempotent: false,
        });
        ctx.out.result(answer, () => [
          `Restored backup ${answer.backup.id}${answer.restartedReleaseId ? `; release ${answer.restartedReleaseId} was restarted` : ''}.`,
        ]);
      });
    common(group.command('delete <backup-id>').description('delete a backup')).action(async (backupId: string, options: BackupOptions) => {
      const { ref, client } = await target(ctx, options);
      const answer = await client.request({
        method: 'DELETE',
        path: routePath(backupRoutes.backup, { id: ref.id, backupId }),
        schema: deleteBackupResponseSchema,
        idempotent: false,
      });
      ctx.out.result(answer, () => [`Deleted backup ${answer.id}.`]);
    });
    common(group.command('schedule').description('set or turn off scheduled backups'))
      .option('--every <minutes>', 'interval in minutes (5 to 43200)')
      .option('--keep <n>', 'scheduled backups kept (default 7)')
      .option('--max-age-days <d>', 'remove scheduled backups older than this (default 30)')
      .option('--off', 'turn scheduled backups off (existing backups are kept)')
      .action(async (options: BackupOptions & { every?: string; keep?: string; maxAgeDays?: string; off?: boolean }) => {
        const { ref, client } = await target(ctx, options);
        const path = routePath(backupRoutes.schedule, { id: ref.id });
        if (options.off) {
          const answer = await client.request({ method: 'DELETE', path, schema: scheduleResponseSchema });
          ctx.out.result(answer, () => ['Scheduled backups are off.']);
          return;
        }
        const int = (value: string | undefined, flag: string): number | undefined => {
          if (value === undefined) return undefined;
          if (!/^\d+$/.test(value)) throw new SvcError('SVC_USAGE', `${flag} must be a whole number.`);
          return Number(value);
        };
        const intervalMinutes = int(options.every, '--every');
        if (intervalMinutes === undefined) throw new SvcError('SVC_USAGE', 'Give --every <minutes> or --off.');
        const body = { intervalMinutes, keep: int(options.keep, '--keep'), maxAgeDays: int(options.maxAgeDays, '--max-age-days') };
        const answer = await client.request({ method: 'PUT', path, body, schema: scheduleResponseSchema, idempotent: true });
        ctx.out.result(answer, () => [
          answer.schedule
            ? `Backups every ${answer.schedule.intervalMinutes} min, keeping ${answer.schedule.keep} for at most ${answer.schedule.maxAgeDays} days; next at ${answer.schedule.nextDueAt}.`
            : 'Scheduled backups are off.',
        ]);
      });
  },
};
