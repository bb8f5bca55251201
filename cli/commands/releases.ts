// `svc releases [list]`: release history of the linked project (or --project) with status, failure
// reason and storage (artifact, bundle, snapshot), plus the project's usage against its limits.
import type { Command } from 'commander';
import { formatBytes } from '../../src/core/format-bytes.js';
import { routePath } from '../../src/identity/contract.js';
import {
  deleteReleaseConfirmation,
  deleteReleaseResponseSchema,
  releaseListResponseSchema,
  releaseRoutes,
  type Release,
  type ReleaseListResponse,
} from '../../src/releases/contract.js';
import { projectResponseSchema, projectRoutes } from '../../src/projects/contract.js';
import { connect } from '../api-client.js';
import type { CommandModule } from '../command-module.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../format-table.js';
import { resolveProjectRef } from '../project-link.js';

interface ReleasesOptions {
  project?: string;
  server?: string;
}

/** Human table of releases (newest first) and a storage summary line (pure). */
export function releaseRows(list: ReleaseListResponse): string[] {
  if (list.releases.length === 0) return ['No releases yet. Deploy one with `svc deploy`.'];
  const table = formatTable(
    ['id', 'status', 'created', 'digest', 'artifact', 'snapshot', 'reason'],
    list.releases.map((r) => [r.id, statusLabel(r), shortTime(r.createdAt), r.digest.slice(0, 12), artifactLabel(r), snapshotLabel(r), reasonLabel(r)]),
  );
  const { usage, limits } = list.storage;
  return [
    ...table,
    '',
    `Storage: ${formatBytes(usage.totalBytes)} of ${formatBytes(limits.maxStorageBytes)} (releases ${formatBytes(usage.bundleBytes)}, database ${formatBytes(usage.databaseBytes)}, snapshots ${formatBytes(usage.snapshotBytes)}); ${usage.retainedArtifacts} of ${limits.maxRetainedArtifacts} artifacts kept`,
  ];
}

function statusLabel(release: Release): string {
  return release.status === 'candidate' ? `candidate (${release.step ?? '?'})` : release.status;
}

function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z');
}

function artifactLabel(release: Release): string {
  if (!release.artifactRetained) return 'removed';
  return `${formatBytes(release.storage.artifactBytes)} (${formatBytes(release.storage.bundleBytes)} files)`;
}

function snapshotLabel(release: Release): string {
  return release.storage.snapshotBytes === null ? '-' : formatBytes(release.storage.snapshotBytes);
}

function reasonLabel(release: Release): string {
  if (!release.failure) return '';
  const message = release.failure.message.length > 80 ? `${release.failure.message.slice(0, 77)}...` : release.failure.message;
  return `${release.failure.code} at ${release.failure.step}: ${message}`;
}

/** Fetch the release history of the project named by `--project` or the directory's link. */
export async function fetchReleases(ctx: CliContext, options: ReleasesOptions): Promise<{ projectId: string; list: ReleaseListResponse }> {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  const list = await client.request({ method: 'GET', path: routePath(releaseRoutes.releases, { id: ref.id }), schema: releaseListResponseSchema });
  return { projectId: ref.id, list };
}

interface DeleteOptions extends ReleasesOptions {
  confirm?: string;
  allowRollbackLoss?: boolean;
}

// Remove an inactive release's artifact; the server checks the phrase, the permission and the rules.
async function deleteRelease(ctx: CliContext, releaseId: string, options: DeleteOptions): Promise<void> {
  const ref = await resolveProjectRef(ctx.cwd, options.project);
  const { client } = await connect(ctx, { server: options.server });
  const slug =
    ref.slug ?? (await client.request({ method: 'GET', path: routePath(projectRoutes.project, { id: ref.id }), schema: projectResponseSchema })).project.slug;
  const phrase = deleteReleaseConfirmation(slug, releaseId);
  if (options.confirm !== phrase) {
    ctx.out.note(`Deleting removes the files of release ${releaseId} (its metadata and audit history stay); it can no longer be rolled back to.`);
    ctx.out.note(`To confirm, run again with --confirm="${phrase}"${options.confirm === undefined ? '' : ' (the phrase given does not match)'}.`);
  }
  const answer = await client.request({
    method: 'DELETE',
    path: routePath(releaseRoutes.release, { id: ref.id, releaseId }),
    body: { confirm: options.confirm ?? '', allowRollbackLoss: options.allowRollbackLoss === true },
    schema: deleteReleaseResponseSchema,
    idempotent: false,
  });
  ctx.out.result(answer, () => [
    `${ctx.out.paint('green')('✓')} Removed the artifact of ${answer.releaseId} (${formatBytes(answer.freedBytes)} freed; status stays ${answer.status})`,
    ...(answer.removedSnapshot ? ['  The active release lost its data-restore snapshot (rollback --restore-data is no longer possible).'] : []),
  ]);
}

/** The `svc releases` command group: list (default) and delete. */
export const releasesCommand: CommandModule = {
  register(program: Command, ctx: CliContext): void {
    const group = program.command('releases').description('list releases with status and storage usage');
    group
      .command('list', { isDefault: true })
      .description('release history of the linked project, newest first (default)')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action(async (options: ReleasesOptions) => {
        const { list } = await fetchReleases(ctx, options);
        ctx.out.result(list, () => releaseRows(list));
      });
    group
      .command('delete <release-id>')
      .description('remove the artifact of an inactive release (metadata and audit history are kept)')
      .option('--confirm <phrase>', 'exactly "delete-release <project-slug> <release-id>"')
      .option('--allow-rollback-loss', 'also allow removing the rollback target of the active release (and its data-restore snapshot)')
      .option('--project <project>', 'project id or slug (default: the link in .svc/project.json)')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .action((releaseId: string, options: DeleteOptions) => deleteRelease(ctx, releaseId, options));
  },
};
