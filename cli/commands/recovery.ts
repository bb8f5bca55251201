// `svc recovery enable`, `svc recovery status`, `svc recovery restore --sequence N | --as-of <time>
// [--epoch <id>] [--activate --confirm="restore <slug>"]`: point-in-time recovery of the project database.
import type { Command } from 'commander';
import { SvcError } from '../../src/core/errors.js';
import { formatBytes } from '../../src/core/format-bytes.js';
import { routePath } from '../../src/identity/contract.js';
import {
  activateRestoreResponseSchema,
  enableRecoveryResponseSchema,
  recoveryRestorePhrase,
  recoveryRoutes,
  recoveryStatusSchema,
  restoreRecoveryResponseSchema,
  type RecoveryStatusResponse,
} from '../../src/recovery/contract.js';
import { ApiClient, connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { resolveProjectRef } from '../project-link.js';

interface RecoveryOptions {
  project?: string;
  server?: string;
}

interface RestoreOptions extends RecoveryOptions {
  sequence?: string;
  asOf?: string;
  epoch?: string;
  activate?: boolean;
  confirm?: string;
}

/** Human lines of a recovery status (pure). */
export function recoveryStatusLines(status: RecoveryStatusResponse): string[] {
  if (!status.enabled) return ['Point-in-time recovery is off (svc recovery enable).'];
  const seq = (n: number | null) => (n === null ? '-' : String(n));
  const lines = [
    `Recovery enabled since ${status.enabledAt}; current epoch ${status.currentEpoch ?? 'none yet (begins at the next start)'}.`,
    `Committed through ${seq(status.committedThrough)}, exported through ${seq(status.exportedThrough)}${status.newestCommitAt ? `, newest commit ${status.newestCommitAt}` : ''}.`,
  ];
  if (status.epochs.length > 0) {
    lines.push(
      '',
      ...formatTable(
        ['epoch', 'recovery id', 'created', 'exported', 'state'],
        status.epochs.map((e) => [e.id, e.epochId ?? '-', e.createdAt ?? '-', seq(e.exportedThrough), e.current ? 'current' : e.abandoned ? 'abandoned' : '']),
      ),
    );
  }
  if (status.restores.length > 0) {
    lines.push(
      '',
      ...formatTable(
        ['restore', 'epoch', 'sequence', 'commit', 'size', 'activated'],
        status.restores.map((r) => [r.id, r.epoch, String(r.sequence), r.commitAt, formatBytes(r.sizeBytes), r.activatedAt ?? '']),
      ),
    );
  }
  return lines;
}

/** The restore request body from the flags (pure); exactly one of --sequence and --as-of. */
export function restoreBody(options: RestoreOptions): { throughSequence?: number; asOf?: string; epochId?: string } {
  if ((options.sequence === undefined) === (options.asOf === undefined))
    throw new SvcError('SVC_USAGE', 'Give exactly one of --sequence <n> and --as-of <time>.');
  if (options.sequence !== undefined && !/^\d+$/.test(options.sequence)) throw new SvcError('SVC_USAGE', '--sequence must be a whole number.');
  return {
    ...(options.sequence !== undefined ? { throughSequence: Number(options.sequence) } : {}),
    ...(options.asOf !== undefined ? { asOf: options.asOf } : {}),
    ...(options.epoch !== undefined ? { epochId: options.epoch } : {}),
  };
}

async function target(ctx: CliContext, options: RecoveryOptions) {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const connection = await connect(ctx, { server: options.server });
  return { ref, client: new ApiClient({ ...connection.client.options, timeoutMs: 600_000 }) };
}

/** The `svc recovery` command group. */
export const recoveryCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('recovery').description('point-in-time recovery of the project database');
    const common = (cmd: Command) =>
      cmd
        .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
        .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)');
    common(group.command('status', { isDefault: true }).description('epochs, committed and exported sequences, restores (default)')).action(
      async (options: RecoveryOptions) => {
        const { ref, client } = await target(ctx, options);
        const status = await client.request({ method: 'GET', path: routePath(recoveryRoutes.recovery, { id: ref.id }), schema: recoveryStatusSchema });
        ctx.out.result(status, () => recoveryStatusLines(status));
      },
    );
    common(group.command('enable').description('enable recovery (takes effect on the next release or supervised restart)')).action(
      async (options: RecoveryOptions) => {
        const { ref, client } = await target(ctx, options);
        const answer = await client.request({
          method: 'POST',
          path: routePath(recoveryRoutes.recovery, { id: ref.id }),
          body: { enabled: true },
          schema: enableRecoveryResponseSchema,
          idempotent: true,
        });
        ctx.out.result(answer, () => [
          `${answer.created ? 'Enabled' : 'Already enabled:'} point-in-time recovery; it takes effect on the next release or supervised restart.`,
        ]);
      },
    );
    common(group.command('restore').description('restore to a sequence or time into a new stopped database; --activate makes it the project database'))
      .option('--sequence <n>', 'restore through this committed sequence')
      .option('--as-of <time>', 'restore the latest commit at or before this time (ISO 8601 or ms)')
      .option('--epoch <id>', 'epoch to restore from (default: current, or the one covering --as-of)')
      .option('--activate', 'make the restored database the project database (the app restarts; newer writes are set aside)')
      .option('--confirm <phrase>', 'with --activate: exactly "restore <project-slug>"')
      .action(async (options: RestoreOptions) => {
        const body = restoreBody(options);
        const { ref, client } = await target(ctx, options);
        if (options.activate && options.confirm === undefined) {
          const slug = ref.slug ?? (await client.getProject(ref.id)).project.slug;
          throw new SvcError(
            'SVC_RECOVERY_CONFIRMATION_MISMATCH',
            `Activating replaces the project database. Run again with --confirm="${recoveryRestorePhrase(slug)}".`,
          );
        }
        const phases = ctx.out.phases();
        phases.phase('restore');
        const restored = await client.request({
          method: 'POST',
          path: routePath(recoveryRoutes.restore, { id: ref.id }),
          body,
          schema: restoreRecoveryResponseSchema,
          idempotent: false,
        });
        const r = restored.restore;
        if (!options.activate) {
          ctx.out.result(restored, () => [
            `Restored epoch ${r.epoch} through sequence ${r.sequence} (${r.commitAt}) into ${r.id} (${formatBytes(r.sizeBytes)}); activate with --activate or the API.`,
          ]);
          return;
        }
        phases.phase('activate-restore');
        const path = routePath(recoveryRoutes.activate, { id: ref.id, restoreId: r.id });
        const answer = await client.request({
          method: 'POST',
          path,
          body: { confirm: options.confirm },
          schema: activateRestoreResponseSchema,
          idempotent: false,
        });
        ctx.out.result(answer, () => [
          `Activated ${r.id} (epoch ${r.epoch}, sequence ${r.sequence}); ${answer.restartedReleaseId ? `release ${answer.restartedReleaseId} restarted` : 'no release to restart'}; previous database kept as ${answer.undoSnapshot}.`,
        ]);
      });
  },
};
