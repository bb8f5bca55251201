// Platform recovery as the composition root sees it: the hooks the release transaction and every app
// start call (env, rotation, drill), and the operations behind the routes.
import { mkdir } from 'node:fs/promises';
import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import type { ProjectLocks } from '../../core/project-lock.js';
import { appendAudit } from '../../audit/append-audit.js';
import { projectDatabase } from '../../backups/index.js';
import { projectLayout } from '../../releases/index.js';
import type { Keyring } from '../../secrets/index.js';
import { readDatabaseEpoch } from './database-epoch.js';
import { allocateEpochDir, epochsRoot, readEpochs } from './epoch-directories.js';
import { chooseEpoch, recoveryEnv } from './recovery-app-env.js';
import { loadRecoveryKey } from './recovery-key-store.js';
import { findProjectRecovery, setCurrentEpoch, setEpochRelease } from './recovery-store.js';
import { rotateStoppedEpoch, verifyStartedEpoch } from './rotate-release-epoch.js';
import type { ProjectRecoveryDeps, RecoveryJobs, RecoverySubject } from './project-recovery.js';
import type { RecoveryAppControl } from './activate-restore.js';
import { recoveryRoutes } from './recovery-routes.js';

/** The seam the releases feature calls (declared there as `ReleaseRecoveryHooks`). */
export interface RecoveryReleaseHooks {
  /** SVC_RECOVERY_DIR/KEY for an app start, or {} when recovery is off. */
  appEnv(projectId: string, databasePath: string, releaseId: string): Promise<Record<string, string>>;
  /** Step 6½ of a deploy: rotate the epoch of the stopped database before migrations. */
  beforeMigrate(subject: RecoverySubject, databasePath: string, releaseId: string): Promise<void>;
  /** After the candidate's health check: the drill of the epoch it began. */
  afterHealthy(projectId: string, databasePath: string): Promise<void>;
  /** Whether the project journals its database (then it never has two writers at once). */
  enabled(projectId: string): boolean;
}

/** The recovery feature. */
export interface RecoveryFeature {
  deps: ProjectRecoveryDeps;
  hooks: RecoveryReleaseHooks;
  /** The HTTP routes; activation needs the shared project locks and app control (built after releases). */
  routes(options: { locks: ProjectLocks; apps: RecoveryAppControl; lockWaitMs?: number }): (app: HttpApp) => Promise<void>;
}

/** Build platform recovery over the control database and the master keyring. */
export function createRecovery(ctx: FeatureContext, options: { keyring: Keyring; jobs: RecoveryJobs; attachWaitMs?: number }): RecoveryFeature {
  const deps: ProjectRecoveryDeps = {
    ctx,
    keyring: options.keyring,
    jobs: options.jobs,
    databasePath: (projectId) => projectDatabase(ctx, projectId)?.path ?? null,
  };
  const enabled = (projectId: string): boolean => findProjectRecovery(ctx, projectId) !== undefined;
  const scratch = async (projectId: string): Promise<string> => {
    const dir = projectLayout(ctx.config.dataDir, projectId).tmpDir;
    await mkdir(dir, { recursive: true });
    return dir;
  };

  const hooks: RecoveryReleaseHooks = {
    enabled,
    async appEnv(projectId, databasePath, releaseId) {
      if (!enabled(projectId)) return {};
      const key = loadRecoveryKey(ctx, options.keyring, projectId);
      const root = epochsRoot(ctx.config.dataDir, projectId);
      const choice = chooseEpoch(readDatabaseEpoch(databasePath), await readEpochs(root, key));
      const epoch = choice.kind === 'continue' ? choice.epoch : await allocateEpochDir(root, key);
      ctx.db.transaction(() => {
        if (choice.kind === 'begin') setEpochRelease(ctx, projectId, epoch.id, releaseId, ctx.clock.now());
        setCurrentEpoch(ctx, projectId, epoch.id, ctx.clock.now());
      })();
      return recoveryEnv(epoch.directory, key);
    },

    async beforeMigrate(subject, databasePath, releaseId) {
      const projectId = subject.project.id;
      if (!enabled(projectId)) return;
      const database = readDatabaseEpoch(databasePath);
      if (database === null) return; // no journal yet: the candidate simply begins the first epoch
      const key = loadRecoveryKey(ctx, options.keyring, projectId);
      const choice = chooseEpoch(database, await readEpochs(epochsRoot(ctx.config.dataDir, projectId), key));
      if (choice.kind !== 'continue') return;
      const result = await rotateStoppedEpoch({ databasePath, epoch: choice.epoch, key, scratchDir: await scratch(projectId), jobs: options.jobs });
      ctx.db.transaction(() =>
        appendAudit(ctx, {
          kind: 'recovery.rotate',
          organizationId: subject.project.organizationId,
          projectId,
          actor: subject.actor,
          metadata: { releaseId, ...result },
        }),
      )();
    },

    async afterHealthy(projectId, databasePath) {
      const row = findProjectRecovery(ctx, projectId);
      if (!row || row.current_epoch === null) return;
      const key = loadRecoveryKey(ctx, options.keyring, projectId);
      await verifyStartedEpoch({
        root: epochsRoot(ctx.config.dataDir, projectId),
        epochDir: row.current_epoch,
        databasePath,
        key,
        scratchDir: await scratch(projectId),
        ...(options.attachWaitMs === undefined ? {} : { waitMs: options.attachWaitMs }),
      });
    },
  };
  return {
    deps,
    hooks,
    routes: ({ locks, apps, lockWaitMs = 60_000 }) =>
      recoveryRoutes({ ...deps, locks, apps, lockWaitMs, activeReleaseId: (projectId) => projectDatabase(ctx, projectId)?.activeReleaseId ?? null }),
  };
}
