// Composition root: builds every feature in dependency order, each with everything it needs passed in,
// and registers the routes. A new feature adds its migrations and its route plugin to the two lists below.
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './core/clock.js';
import type { PlatformConfig } from './core/config.js';
import { openControlDb, type ControlDb } from './core/control-db.js';
import { applyMigrations, type Migration } from './core/db-migrations.js';
import type { FeatureContext } from './core/feature-context.js';
import { createHttpApp, type HttpApp } from './core/http/create-http-app.js';
import { healthRoutes } from './core/http/health-routes.js';
import { randomId, type IdGenerator } from './core/ids.js';
import { createLogger, type Logger } from './core/logger.js';
import { auditMigrations, auditRoutes } from './audit/index.js';
import { createIdentity, identityMigrations, type IdentityFeature } from './identity/index.js';
import { projectRoutes, projectsMigrations, projectUid, resolveProject } from './projects/index.js';
import { createDomains, deleteProjectRoutes, domainsMigrations, domainsRoutes, tlsAskRoutes, type DomainsFeature } from './projects/index.js';
import { createSecrets, secretRoutes, secretsMigrations, type SecretsFeature } from './secrets/index.js';
import { backupsMigrations, createBackups, type BackupsFeature } from './backups/index.js';
import { createIngress, ingressMigrations, ingressRoutes, serveUpgrades, type Ingress } from './ingress/index.js';
import { askEdge } from './ingress/edge/edge-control.js';
import { edgePaths } from './ingress/edge/edge-paths.js';
import {
  combineObservers,
  createReleases,
  deleteReleaseRoutes,
  isolationSchema,
  locateProjectPath,
  logIsolation,
  projectLayout,
  releaseDirOf,
  releasesMigrations,
  type ReleasesFeature,
} from './releases/index.js';
import { createOidcUploadAuth, githubLinkLookup, oidcMigrations } from './github/oidc/index.js';
import { consoleRoutes } from './console/index.js';
import { createGithub, githubMigrations, type GithubFeature, type GithubOptions, type GithubReleases } from './github/index.js';
import { createRecovery, recoveryEnabled, recoveryMigrations } from './recovery/platform/index.js';
import { bucketLimitsFromEnv, projectBucketEnvironment } from './projects/bucket-environment.js';
import { canaryMigrations, createCanary, type CanaryFeature, type CanaryOptions } from './canary/index.js';
import { createOps, createPrometheusMetrics, opsMigrations, type OpenDrillDriver, type OpsFeature } from './ops/index.js';
import { createNodes, nodesMigrations, type NodeReleaseListener, type NodesFeature } from './nodes/index.js';
import { PACKAGE_NAME } from './core/package-name.js';
import { appUrlOf, eraseProject, findProject } from './projects/index.js';
import { copyProductionData, createPreviews, previewRoutes, previewsMigrations, type PreviewLifecycle, type PreviewsFeature } from './previews/index.js';
import type { ReleaseObserver } from './releases/index.js';
import { openLocalReleaseDriver } from '../runner/local-release-driver.js';
import { readDriverChoice } from '../runner/runner-settings.js';
import type { ReleaseDriver, ReleaseDriverHooks } from '../runner/release-driver.js';

/** Every control-database migration, in dependency order (identity before projects before audit). */
export const controlMigrations: readonly Migration[] = [
  ...identityMigrations,
  ...projectsMigrations,
  ...auditMigrations,
  ...ingressMigrations,
  ...releasesMigrations,
  ...secretsMigrations,
  ...backupsMigrations,
  ...domainsMigrations,
  ...oidcMigrations,
  ...recoveryMigrations,
  ...githubMigrations,
  ...canaryMigrations,
  ...opsMigrations,
  ...nodesMigrations,
  ...previewsMigrations,
];

export interface ControlPlaneDeps {
  config: PlatformConfig;
  /** An open control database; default: `<dataDir>/control.db`. */
  db?: ControlDb;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** GitHub App settings source and test seams (default: process.env). */
  github?: GithubOptions;
  /** A deployment-authority check of canary stages beyond the project lock (tests revoke it mid-stage). */
  canary?: Pick<CanaryOptions, 'authority'>;
}

export interface ControlPlane {
  app: FastifyInstance;
  db: ControlDb;
  context: FeatureContext;
  identity: IdentityFeature;
  /** App-host proxy: `ingress.routes` is what the release pipeline switches and drains. */
  ingress: Ingress;
  /** Upload, release transaction, rollback, supervisor of active releases, logs. */
  releases: ReleasesFeature;
  /** Encrypted secrets (master key), backups and their scheduler, custom domains. */
  secrets: SecretsFeature;
  backups: BackupsFeature;
  domains: DomainsFeature;
  /** Webhooks, check runs, deployments, PR commands. */
  github: GithubFeature;
  /** Canary runs and their report store (the svc/canary check run's observer is passed in). */
  canary: CanaryFeature;
  /** Runner-node enrollment, placement, generations and leases. */
  nodes: NodesFeature;
  /** Pull-request previews: their lifecycle, idle stop and wake. */
  previews: PreviewsFeature;
  /** Signed audit export and the operations monitor (both opt-in via env). */
  ops: OpsFeature;
  /** Close the HTTP app (draining requests) and then the database. */
  close(): Promise<void>;
}

/** The svc version from package.json (works from src/ and from dist/src/). */
export function platformVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME) return pkg.version ?? '0.0.0';
    }
  }
  return '0.0.0';
}

/** Build the control plane: open and migrate the database, wire features, register routes. Never listens. */
export async function buildControlPlane(deps: ControlPlaneDeps): Promise<ControlPlane> {
  const { config } = deps;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const db = deps.db ?? openControlDb(join(config.dataDir, 'control.db'));
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger({ level: config.logLevel });
  try {
    applyMigrations(db, controlMigrations, () => clock.now());
  } catch (error) {
    if (!deps.db) db.close();
    throw error;
  }
  const ctx: FeatureContext = { db, clock, ids: deps.ids ?? randomId, config, logger };
  const identity = createIdentity(ctx, { resolveProject: (idOrSlug) => resolveProject(ctx, idOrSlug) });

  const ingress = createIngress(ctx);
  // GET /metrics behind SVC_METRICS_TOKEN (refused without one); the ingress process adds its in-flight counts.
  const askEdgeRoutes = () => askEdge(edgePaths(config.dataDir).ingressSocket, { op: 'routes' });
  const metrics = await createPrometheusMetrics(ctx, { ingress, askEdge: askEdgeRoutes });
  const secrets = createSecrets(ctx); // loads the master key: a wrong key stops start-up here
  // Previews are built after releases (they stop, start and remove apps) but GitHub, OIDC and the release
  // pipeline call them: through these forwarding objects, only once something happens.
  let previews: PreviewsFeature | null = null;
  const built = (): PreviewsFeature =>
    previews ??
    (() => {
      throw new Error('previews are not built yet');
    })();
  const previewLifecycle: PreviewLifecycle = {
    open: (input) => built().lifecycle.open(input),
    close: (input) => built().lifecycle.close(input),
    previewOf: (projectId) => previews?.lifecycle.previewOf(projectId) ?? null,
    find: (parentProjectId, number) => previews?.lifecycle.find(parentProjectId, number) ?? null,
  };
  const previewObserver: ReleaseObserver = {
    admit: (projectId, source) => previews?.observer.admit?.(projectId, source),
    onCandidate: (release, source) => previews?.observer.onCandidate?.(release, source),
    onOutcome: (release) => previews?.observer.onOutcome?.(release),
  };
  const uploadPrincipal = createOidcUploadAuth(ctx, {
    links: githubLinkLookup(ctx),
    previews: (parentProjectId, number) => previewLifecycle.find(parentProjectId, number)?.previewProjectId ?? null,
  }); // GitHub Actions OIDC bearers on the upload route
  const bucketLimits = bucketLimitsFromEnv(config.env); // administrator limits for every project's buckets
  // Recovery, GitHub and nodes are built before releases (releases call their hooks) and also call back into
  // releases, each through one narrow callback interface created here. The callbacks reach releases only when
  // something happens (a snapshot or restore job, a PR command, a node's report), never during construction.
  const driverJobs: Pick<ReleaseDriver, 'runJob'> = { runJob: (job) => releases.driver.runJob(job) };
  const releaseRollback: GithubReleases = { rollback: (input) => releases.rollback(input) };
  const nodeReports: NodeReleaseListener = { settled: (input) => void releases.nodeSettled(input), route: (input) => releases.nodeRoute(input) };
  const recovery = createRecovery(ctx, { keyring: secrets.keyring, jobs: driverJobs });
  const github = createGithub(ctx, releaseRollback, deps.github, previewLifecycle);
  const nodes = createNodes(ctx, { releases: nodeReports }); // reads SVC_NODE_* timings
  // Canaries are refused while recovery is on: the candidate would be a second writer to the journaled database.
  const canary = createCanary(ctx, ingress, {
    recoveryEnabled: (projectId) => recoveryEnabled(ctx, projectId),
    observer: github.canaryObserver,
    ...deps.canary,
  });
  // Where apps run: the local release driver over the runner SVC_RUNNER / SVC_SANDBOX select, or the swarm
  // driver (SVC_DRIVER=swarm; invalid settings stop start-up, never a fallback). Releases give it its hooks.
  // The swarm driver (dockerode, ssh2 and grpc under it) is imported only when chosen: ~25 MiB resident.
  const swarm = readDriverChoice(config.env) === 'swarm' ? await import('../runner/swarm/open-swarm-release-driver.js') : null;
  const driver = (hooks: ReleaseDriverHooks) =>
    swarm
      ? swarm.openSwarmReleaseDriver(config.env, {
          ...hooks,
          dataDir: config.dataDir,
          clock,
          locate: (path) => locateProjectPath(config.dataDir, path),
          releaseDirOf: (projectId, releaseId) => releaseDirOf(projectLayout(config.dataDir, projectId), releaseId),
        })
      : openLocalReleaseDriver(config.env, {
          ...hooks,
          dataDir: config.dataDir,
          clock,
          uidFor: (projectId, uidBase) => projectUid(ctx, projectId, uidBase),
          traversableRoots: [dirname(config.dataDir)],
        });
  // Restore drills start the release copy through a driver of their own over the same runner kind, everything
  // it keeps in the drill's temp directory (never the production supervisor state or logs).
  const openDrillDriver: OpenDrillDriver = (workDir, resolveSpec) =>
    openLocalReleaseDriver(config.env, {
      resolveSpec,
      onEvent: () => undefined,
      dataDir: workDir,
      clock,
      stopGraceMs: 5000,
      uidFor: (projectId, uidBase) => projectUid(ctx, projectId, uidBase),
      traversableRoots: [dirname(config.dataDir), workDir],
    });
  const releases = createReleases(ctx, {
    driver: metrics.instrumentDriver(driver),
    routing: ingress.routes,
    // A preview's apps get its production project's preview secrets, never production's.
    loadSecrets: (projectId) => {
      const owner = built().secretsOf(projectId);
      return secrets.loadSecrets(owner.projectId, owner.scope);
    },
    uploadPrincipal,
    previewUploads: {
      target(parentIdOrSlug, number) {
        const parent = findProject(ctx, parentIdOrSlug);
        const row = built().uploadTarget(parent?.id ?? parentIdOrSlug, number);
        return { projectId: row.project_id, headSha: row.head_sha };
      },
    },
    recovery: recovery.hooks,
    observer: combineObservers([previewObserver, github.observer, metrics.releaseObserver]),
    canary: canary.hooks,
    appEnv: (projectId, layout) => projectBucketEnvironment(projectId, layout.dataDir, secrets.keyring.secretsKey, bucketLimits),
    placement: nodes.placement,
  });
  metrics.watchApps({ driver: releases.driver, isPlaced: (projectId) => nodes.placement.isPlaced(projectId) });
  logIsolation(logger, releases.isolation()); // once per start: apps unisolated or unable to start must not go unnoticed
  const apps = releases.apps; // restore, recovery and project deletion stop and restart apps through the release pipeline
  const backups = createBackups(ctx, { locks: releases.locks, keyring: secrets.keyring, apps, jobs: releases.driver });
  const domains = createDomains(ctx, ingress.routes);
  domains.load();
  // Reads SVC_AUDIT_EXPORT_* / SVC_OPS_* (all opt-in); placed projects have no local app to probe or drill.
  const ops = createOps(ctx, {
    backups,
    metrics: ingress.metrics,
    supervisor: releases.driver,
    openDrillDriver,
    loadSecrets: secrets.loadSecrets,
    drillObserver: github.drillObserver,
    isPlaced: (projectId) => nodes.placement.isPlaced(projectId),
  });
  const siteDeletion = {
    ctx,
    locks: releases.locks,
    apps,
    outsideRoot: (projectId: string) => [['logs', projectId]],
    cleanups: [(projectId: string) => ingress.metrics.deleteProject(projectId)],
    forget: (projectId: string) => void ingress.routes.removeProject(projectId),
    removeRuntime: async (projectId: string) => releases.driver.removeProject?.(projectId), // a swarm's objects of the project
    removeDependents: (projectId: string) => built().removeAll(projectId),
  };
  previews = createPreviews(ctx, {
    locks: releases.locks,
    apps,
    running: (projectId) => releases.driver.current(projectId),
    erase: async (projectId, audit) => {
      await eraseProject(siteDeletion, projectId, { actor: audit.actor, revokeTokens: true, audit: { kind: 'preview.delete', metadata: audit.metadata } });
    },
    routing: ingress.routes,
    onRequest: (observer) => ingress.onRequestComplete(observer),
    copyProductionData: (parent, preview) => copyProductionData(ctx, parent, preview, { local: swarm === null && !nodes.placement.isPlaced(parent.id) }),
    appUrl: (slug) => appUrlOf(config, slug),
  });
  const app = await createHttpApp({
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    version: platformVersion(),
    intercept: ingress.handle,
  });
  serveUpgrades(app.server, ingress); // apps' WebSockets when this process takes app traffic (SVC_INGRESS_PROCESS=off, SVC_INGRESS_ROUTES=control-plane)
  const readiness = [
    { name: 'database', check: () => (db.prepare('SELECT COUNT(*) AS n FROM schema_version').get() as { n: number }).n > 0 },
    { name: 'dataDir', check: () => (accessSync(config.dataDir, constants.W_OK), true) },
    { name: 'isolation', check: () => releases.isolation().available }, // apps cannot start without their sandbox
  ];
  const readinessDetails = [{ name: 'isolation', schema: isolationSchema, read: () => releases.isolation() }];
  const routePlugins: ((app: HttpApp) => Promise<void>)[] = [
    healthRoutes(readiness, readinessDetails),
    identity.routes,
    projectRoutes(ctx),
    auditRoutes(ctx),
    ingressRoutes(ctx, ingress),
    releases.routes,
    github.routes,
    secretRoutes(ctx, secrets),
    backups.routes,
    domainsRoutes(ctx, domains),
    tlsAskRoutes(ctx, domains),
    deleteProjectRoutes(siteDeletion),
    previewRoutes(ctx, previews), // /api/projects/:id/previews*, /api/projects/:id/preview-settings
    deleteReleaseRoutes(ctx, releases.locks, releases.driver),
    recovery.routes({ locks: releases.locks, apps }),
    canary.routes, // GET /api/projects/:id/canary
    ops.routes, // /api/admin/operations, /api/admin/audit-export
    nodes.routes, // /api/admin/nodes*, /api/nodes/*, /api/projects/:id/placement|generations
    metrics.routes, // GET /metrics, and the API request counts
    consoleRoutes(ctx), // keep last: GET /* serves the console and its history-routing fallback
  ];
  for (const plugin of routePlugins) await plugin(app);
  await app.ready();
  canary.start(); // runs a dead control plane left running are marked interrupted (the prior release stays)
  await releases.start(); // finish interrupted deploys, re-adopt or restart active releases
  await github.start(); // resume queued deliveries and syncs
  backups.start(); // the backup scheduler
  ops.start(); // audit export loop and monitor (when configured)
  nodes.start(); // unroute placed projects whose node went offline
  previews.start(); // idle sweep, wake on request

  let closed = false;
  return {
    app: app as unknown as FastifyInstance,
    db,
    context: ctx,
    identity,
    ingress,
    releases,
    secrets,
    backups,
    domains,
    github,
    canary,
    ops,
    nodes,
    previews,
    async close() {
      if (closed) return;
      closed = true;
      // The ingress closes alongside the server (long proxied streams cannot hold it open) and flushes metrics.
      await Promise.all([app.close(), ingress.close()]);
      await previews!.close(); // stop the idle sweep, finish wakes
      await ops.close(); // stop export and monitor loops
      nodes.close(); // stop the offline sweep
      await backups.close(); // stop the backup scheduler before releases stop the apps
      await github.close(); // stop the queue (unfinished jobs run again after a restart)
      await releases.close(); // stop (or leave) supervised apps
      if (db.open) db.close();
    },
  };
}
