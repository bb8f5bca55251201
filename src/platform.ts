// Composition root: builds every feature with its dependencies and registers its routes.
// Later issues add their migrations and route plugins to the two lists below.
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
import { createDomains, deleteProjectRoutes, domainsMigrations, domainsRoutes, tlsAskRoutes, type DomainsFeature } from './projects/index.js'; // svc:lifecycle
import { createSecrets, secretRoutes, secretsMigrations, type SecretsFeature } from './secrets/index.js'; // svc:lifecycle
import { backupsMigrations, createBackups, type BackupsFeature } from './backups/index.js'; // svc:lifecycle
import { createIngress, ingressMigrations, ingressRoutes, serveUpgrades, type Ingress } from './ingress/index.js';
import { createReleases, deleteReleaseRoutes, isolationSchema, locateProjectPath, logIsolation, projectLayout, releaseDirOf, releasesMigrations, type ReleasesFeature } from './releases/index.js';
import { createOidcUploadAuth, githubLinkLookup, oidcMigrations } from './github/oidc/index.js'; // svc:oidc
import { consoleRoutes } from './console/index.js'; // svc:console
import { createGithub, githubMigrations, type GithubFeature, type GithubOptions } from './github/index.js'; // svc:github
import { createRecovery, recoveryEnabled, recoveryMigrations } from './recovery/platform/index.js'; // svc:recovery
import { bucketLimitsFromEnv, projectBucketEnvironment } from './projects/bucket-environment.js'; // svc:buckets
import { canaryMigrations, createCanary, type CanaryFeature } from './canary/index.js'; // svc:canary
import { createOps, opsMigrations, type OpenDrillDriver, type OpsFeature } from './ops/index.js'; // svc:ops
import { createNodes, nodesMigrations, type NodesFeature } from './nodes/index.js'; // svc:nodes
import { openLocalReleaseDriver } from '../runner/local-release-driver.js'; // svc:releases — apps run on this machine
import { openSwarmReleaseDriver } from '../runner/swarm/open-swarm-release-driver.js'; // svc:releases — or on a Docker swarm (SVC_DRIVER=swarm)
import { readDriverChoice } from '../runner/runner-settings.js'; // svc:releases
import type { ReleaseDriver, ReleaseDriverHooks } from '../runner/release-driver.js'; // svc:releases

/** Every control-database migration, in dependency order (identity before projects before audit). */
export const controlMigrations: readonly Migration[] = [...identityMigrations, ...projectsMigrations, ...auditMigrations, ...ingressMigrations, ...releasesMigrations, ...secretsMigrations, ...backupsMigrations, ...domainsMigrations, ...oidcMigrations, ...recoveryMigrations, ...githubMigrations, ...canaryMigrations, ...opsMigrations, ...nodesMigrations];

export interface ControlPlaneDeps {
  config: PlatformConfig;
  /** An open control database; default: `<dataDir>/control.db`. */
  db?: ControlDb;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  /** svc:github — GitHub App settings source and test seams (default: process.env). */
  github?: GithubOptions;
}

export interface ControlPlane {
  app: FastifyInstance;
  db: ControlDb;
  context: FeatureContext;
  identity: IdentityFeature;
  /** svc:ingress — app-host proxy: `ingress.routes` is what the release pipeline switches and drains. */
  ingress: Ingress;
  /** svc:releases — upload, release transaction, rollback, supervisor of active releases, logs. */
  releases: ReleasesFeature;
  /** svc:lifecycle — encrypted secrets (master key), backups and their scheduler, custom domains. */
  secrets: SecretsFeature;
  backups: BackupsFeature;
  domains: DomainsFeature;
  /** svc:github — webhooks, check runs, deployments, PR commands. */
  github: GithubFeature;
  /** svc:canary — canary runs and their report store (the svc/canary check run's observer is passed in). */
  canary: CanaryFeature;
  /** svc:nodes — runner-node enrollment, placement, generations and leases. */
  nodes: NodesFeature;
  /** svc:ops — signed audit export and the operations monitor (both opt-in via env). */
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
      if (pkg.name === 'svc') return pkg.version ?? '0.0.0';
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

  const ingress = createIngress(ctx); // svc:ingress
  const secrets = createSecrets(ctx); // svc:lifecycle — loads the master key; a wrong key stops start-up here
  const uploadPrincipal = createOidcUploadAuth(ctx, { links: githubLinkLookup(ctx) }); // svc:oidc — GitHub Actions OIDC uploads
  const bucketLimits = bucketLimitsFromEnv(config.env); // svc:buckets — administrator limits for every project's buckets
  // svc:lifecycle, svc:recovery — database snapshots and restores run as the release driver's jobs. Recovery is
  // built before releases (they call its hooks), so it reaches the driver when a job runs, never before.
  const driverJobs: Pick<ReleaseDriver, 'runJob'> = { runJob: (job) => releases.driver.runJob(job) };
  const recovery = createRecovery(ctx, { keyring: secrets.keyring, jobs: driverJobs }); // svc:recovery — per-project point-in-time recovery
  const github = createGithub(ctx, deps.github); // svc:github — observer of releases; gets their rollback at start
  const nodes = createNodes(ctx); // svc:nodes — reads SVC_NODE_* timings
  const canary = createCanary(ctx, ingress, { recoveryEnabled: (projectId) => recoveryEnabled(ctx, projectId), observer: github.canaryObserver }); // svc:canary — canary rollouts over the ingress split; refused when recovery is on (spec 002 rule 2); svc:github — the svc/canary check run
  // svc:releases — the local release driver over the runner SVC_RUNNER / SVC_SANDBOX select, or the swarm driver
  // (SVC_DRIVER=swarm; invalid settings stop start-up, never a fallback); the releases feature gives it its hooks
  const driverChoice = readDriverChoice(config.env);
  const driver = (hooks: ReleaseDriverHooks) =>
    driverChoice === 'swarm'
      ? openSwarmReleaseDriver(config.env, { ...hooks, dataDir: config.dataDir, clock, locate: (path) => locateProjectPath(config.dataDir, path), releaseDirOf: (projectId, releaseId) => releaseDirOf(projectLayout(config.dataDir, projectId), releaseId) })
      : openLocalReleaseDriver(config.env, { ...hooks, dataDir: config.dataDir, clock, uidFor: (projectId, uidBase) => projectUid(ctx, projectId, uidBase), traversableRoots: [dirname(config.dataDir)] });
  // svc:ops — restore drills start the release copy through a driver of their own over the same runner kind,
  // everything it keeps in the drill's temp directory (never the production supervisor state or logs).
  const openDrillDriver: OpenDrillDriver = (workDir, resolveSpec) =>
    openLocalReleaseDriver(config.env, { resolveSpec, onEvent: () => undefined, dataDir: workDir, clock, stopGraceMs: 5000, uidFor: (projectId, uidBase) => projectUid(ctx, projectId, uidBase), traversableRoots: [dirname(config.dataDir), workDir] });
  const releases = createReleases(ctx, { driver, routing: ingress.routes, loadSecrets: secrets.loadSecrets, uploadPrincipal, recovery: recovery.hooks, observer: github.observer, canary: canary.hooks, appEnv: (projectId, layout) => projectBucketEnvironment(projectId, layout.dataDir, secrets.keyring.secretsKey, bucketLimits), placement: nodes.placement }); // svc:releases
  logIsolation(logger, releases.isolation()); // svc:releases — once per start: apps unisolated or unable to start must not go unnoticed
  // The one late binding left: releases need nodes' placement to be built, and nodes report back to releases.
  nodes.setReleaseListener({ settled: (o) => void releases.nodeSettled(o), route: (o) => releases.nodeRoute(o) }); // svc:nodes
  const apps = releases.apps; // svc:lifecycle — restore, recovery and site deletion stop/restart apps through the release pipeline
  const backups = createBackups(ctx, { locks: releases.locks, keyring: secrets.keyring, apps, jobs: driverJobs });
  const domains = createDomains(ctx, ingress.routes);
  domains.load();
  const ops = createOps(ctx, { backups, metrics: ingress.metrics, supervisor: releases.driver, openDrillDriver, loadSecrets: secrets.loadSecrets, drillObserver: github.drillObserver, isPlaced: (projectId) => nodes.placement.isPlaced(projectId) }); // svc:ops — reads SVC_AUDIT_EXPORT_* / SVC_OPS_* (all opt-in)
  const siteDeletion = {
    ctx,
    locks: releases.locks,
    apps,
    outsideRoot: (projectId: string) => [['logs', projectId]],
    cleanups: [(projectId: string) => ingress.metrics.deleteProject(projectId)],
    forget: (projectId: string) => void ingress.routes.removeProject(projectId),
    removeRuntime: async (projectId: string) => releases.driver.removeProject?.(projectId), // svc:releases — a swarm's objects of the project
  };
  const app = await createHttpApp({ logger, bodyLimitBytes: config.bodyLimitBytes, trustProxy: config.trustProxy, version: platformVersion(), intercept: ingress.handle });
  serveUpgrades(app.server, ingress); // svc:ingress — apps' WebSockets when this process takes app traffic (SVC_INGRESS_PROCESS=off, SVC_INGRESS_ROUTES=control-plane)
  const readiness = [
    { name: 'database', check: () => (db.prepare('SELECT COUNT(*) AS n FROM schema_version').get() as { n: number }).n > 0 },
    { name: 'dataDir', check: () => (accessSync(config.dataDir, constants.W_OK), true) },
    { name: 'isolation', check: () => releases.isolation().available }, // svc:releases — apps cannot start without their sandbox
  ];
  const readinessDetails = [{ name: 'isolation', schema: isolationSchema, read: () => releases.isolation() }];
  const routePlugins: ((app: HttpApp) => Promise<void>)[] = [
    healthRoutes(readiness, readinessDetails),
    identity.routes,
    projectRoutes(ctx),
    auditRoutes(ctx),
    ingressRoutes(ctx, ingress),
    releases.routes,
    github.routes, // svc:github
    secretRoutes(ctx, secrets), // svc:lifecycle
    backups.routes,
    domainsRoutes(ctx, domains),
    tlsAskRoutes(ctx, domains),
    deleteProjectRoutes(siteDeletion),
    deleteReleaseRoutes(ctx, releases.locks, releases.driver),
    recovery.routes({ locks: releases.locks, apps }), // svc:recovery
    canary.routes, // svc:canary — GET /api/projects/:id/canary
    ops.routes, // svc:ops — /api/admin/operations, /api/admin/audit-export
    nodes.routes, // svc:nodes — /api/admin/nodes*, /api/nodes/*, /api/projects/:id/placement|generations
    consoleRoutes(ctx), // svc:console — keep last: GET /* serves the console and its history-routing fallback
  ];
  for (const plugin of routePlugins) await plugin(app);
  await app.ready();
  canary.start(); // svc:canary — runs a dead control plane left running are interrupted (prior release kept)
  await releases.start(); // svc:releases — finish interrupted deploys, re-adopt or restart active releases
  await github.start(releases); // svc:github — resume queued deliveries and syncs; PR commands roll back through releases
  backups.start(); // svc:lifecycle — scheduled backups
  ops.start(); // svc:ops — audit export loop and monitor (when configured)
  nodes.start(); // svc:nodes — unroute placed projects whose node went offline

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
    async close() {
      if (closed) return;
      closed = true;
      // svc:ingress — closes alongside the server (long proxied streams cannot hold it open); flushes metrics
      await Promise.all([app.close(), ingress.close()]);
      await ops.close(); // svc:ops — stop export and monitor loops
      nodes.close(); // svc:nodes — stop the offline sweep
      await backups.close(); // svc:lifecycle — stop the backup scheduler first
      await github.close(); // svc:github — stop the queue (unfinished jobs run again after a restart)
      await releases.close(); // svc:releases — stop (or leave) supervised apps
      if (db.open) db.close();
    },
  };
}
