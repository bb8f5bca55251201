// Project deletion (docs/project-deletion.md): account-wide credential, owner or
// administrator rechecked under the project lock; stop the app; verify the project path and its
// parents are real directories; remove the project root (and its logs); then ONE control-database
// transaction revokes project tokens, removes placement/operation state, deletes the project row
// (cascading domains, releases, snapshots, secrets, backups, schedules) and appends project.delete.
import { join } from 'node:path';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError, isSvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { actorOf, authorize, revokeProjectTokens, type Principal } from '../identity/index.js';
import { deleteSitePhrase } from './domains-contract.js';
import { nodeDeletionFs, removeTree, verifyRealDirectory, type DeletionFs } from './delete-project-fs.js';
import { findProject, type ProjectRow } from './project-store.js';

/** Stop and restart a project's app (the releases feature's app control, which keeps the ingress route in step). */
export interface DeletionAppControl {
  stop(projectId: string): Promise<void>;
  start(projectId: string, releaseId: string): Promise<void>;
}

export interface SiteDeletionDeps {
  ctx: FeatureContext;
  locks: ProjectLocks;
  apps: DeletionAppControl;
  /** Directories of the project kept outside its root (logs), relative to the data directory. */
  outsideRoot?: (projectId: string) => string[][];
  /** Other features' placement and operation rows, deleted inside the metadata transaction (e.g. metrics). */
  cleanups?: ((projectId: string) => void)[];
  /** In-memory state to drop after the commit (ingress routes and hosts). */
  forget?: (projectId: string) => void;
  /** What the app driver keeps for the project outside the data directory (a swarm's services, secrets, network, volume), removed with the files. */
  removeRuntime?: (projectId: string) => Promise<void>;
  fs?: DeletionFs;
  lockWaitMs?: number;
  /** Remove projects that live only for this one (its pull-request previews) before it goes. */
  removeDependents?: (projectId: string) => Promise<void>;
}

export interface SiteDeletionInput {
  principal: Principal;
  project: ProjectRow;
  confirm: string;
  acknowledgeDataLoss: boolean;
}

export interface SiteDeletionResult {
  projectId: string;
  slug: string;
  auditEventId: string;
  revokedTokens: number;
}

/** The fixed, recovery-safe message when files are gone but the metadata transaction failed. */
export const INCOMPLETE_MESSAGE = 'The site files were removed, but the control-database cleanup did not finish. Retry the same delete request to complete it.';

function checkRequest(input: Pick<SiteDeletionInput, 'confirm' | 'acknowledgeDataLoss'>, slug: string): void {
  if (input.acknowledgeDataLoss !== true) throw new SvcError('SVC_DATA_LOSS_NOT_ACKNOWLEDGED');
  const phrase = deleteSitePhrase(slug);
  if (input.confirm !== phrase) throw new SvcError('SVC_SITE_DELETE_CONFIRMATION_MISMATCH', `Type exactly: ${phrase}`);
}

function recheck(ctx: FeatureContext, principal: Principal, project: ProjectRow): void {
  authorize(ctx, principal, { permission: 'admin', organizationId: project.organization_id, projectId: project.id, accountWide: true });
}

/** Delete a site permanently. */
export async function deleteSite(deps: SiteDeletionDeps, input: SiteDeletionInput): Promise<SiteDeletionResult> {
  checkRequest(input, input.project.slug);
  recheck(deps.ctx, input.principal, input.project);
  await deps.removeDependents?.(input.project.id);
  return eraseProject(deps, input.project.id, {
    actor: actorOf(input.principal),
    // Under the lock: the phrase still matches, the role still allows it.
    guard: (project) => {
      checkRequest(input, project.slug);
      recheck(deps.ctx, input.principal, project);
    },
    revokeTokens: true,
  });
}

export interface EraseOptions {
  actor: AuditInput['actor'];
  /** Checks run under the lock on the current row (throw to refuse). */
  guard?: (project: ProjectRow) => void;
  /** Revoke the project's scoped tokens (a preview has none of its own). */
  revokeTokens: boolean;
  /** Audit kind and extra metadata (default project.delete). */
  audit?: { kind: AuditInput['kind']; metadata?: Record<string, unknown> };
}

/**
 * Remove a project and everything it owns, under its lock: stop the app, remove its files (restarting
 * the app if that fails), then one transaction for tokens, rows and the audit event. The platform's own
 * removals (a closed pull request's preview) call it directly; a user's delete goes through deleteSite.
 */
export async function eraseProject(deps: SiteDeletionDeps, projectId: string, options: EraseOptions): Promise<SiteDeletionResult> {
  const { ctx } = deps;
  const fs = deps.fs ?? nodeDeletionFs;
  return deps.locks.withLock(
    projectId,
    'site-delete',
    async () => {
      // 1. Under the lock: the project still exists (and the caller's checks still pass).
      const project = findProject(ctx, projectId);
      if (!project || project.id !== projectId) throw new SvcError('SVC_PROJECT_NOT_FOUND');
      options.guard?.(project);
      const activeReleaseId = project.active_release_id;
      // 2. Stop the supervised application.
      await deps.apps.stop(projectId);

      // 3 + 4. Verify the paths, remove the project root (runtime files last) and its logs.
      try {
        if (await verifyRealDirectory(fs, ctx.config.dataDir, ['projects', projectId])) {
          await removeTree(fs, join(ctx.config.dataDir, 'projects', projectId), ['releases']);
        }
        for (const parts of deps.outsideRoot?.(projectId) ?? []) {
          if (await verifyRealDirectory(fs, ctx.config.dataDir, parts)) await removeTree(fs, join(ctx.config.dataDir, ...parts));
        }
        await deps.removeRuntime?.(projectId);
      } catch (error) {
        ctx.logger.error({ err: error, projectId }, 'project deletion: removing files failed; restarting the previous release');
        if (activeReleaseId)
          await deps.apps
            .start(projectId, activeReleaseId)
            .catch((startError: unknown) => ctx.logger.error({ err: startError, projectId }, 'project deletion: restart failed'));
        if (isSvcError(error, 'SVC_SITE_PATH_UNSAFE')) throw error;
        throw new SvcError(
          'SVC_SITE_DELETE_FILES_FAILED',
          `Removing the project files failed: ${(error as NodeJS.ErrnoException).code ?? 'error'}. The project still exists; retry after fixing the cause.`,
          { cause: error },
        );
      }

      // 5. One transaction: tokens, placement/operation state, metadata (cascading), audit event.
      let result: SiteDeletionResult;
      try {
        result = ctx.db
          .transaction(() => {
            const revokedTokens = options.revokeTokens ? revokeProjectTokens(ctx, projectId) : 0;
            for (const cleanup of deps.cleanups ?? []) cleanup(projectId);
            ctx.db.prepare('DELETE FROM projects WHERE id = ?').run(projectId);
            const auditEventId = appendAudit(ctx, {
              kind: options.audit?.kind ?? 'project.delete',
              organizationId: project.organization_id,
              projectId,
              actor: options.actor,
              metadata: {
                projectId,
                slug: project.slug,
                name: project.name,
                organizationId: project.organization_id,
                revokedTokens,
                activeReleaseId,
                ...options.audit?.metadata,
              },
            });
            return { projectId, slug: project.slug, auditEventId, revokedTokens };
          })
          .immediate();
      } catch (error) {
        ctx.logger.error({ err: error, projectId }, 'project deletion: metadata transaction failed after the files were removed');
        throw new SvcError('SVC_SITE_DELETE_INCOMPLETE', INCOMPLETE_MESSAGE);
      }
      deps.forget?.(projectId);
      return result;
    },
    { waitMs: deps.lockWaitMs ?? 60_000 },
  );
}
