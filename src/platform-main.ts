// Entry of `svc-platform` (bin/svc-platform.js): parse configuration, make sure the ingress process
// owns the public port, build, listen on the control socket behind it, shut down cleanly.
import { pathToFileURL } from 'node:url';
import { parsePlatformConfig, envNames, flagNames, type PlatformConfig } from './core/config.js';
import { isSvcError } from './core/errors.js';
import { configurationExitStatus, platformStartExitStatus } from './core/exit-status.js';
import { createLogger, type Logger } from './core/logger.js';
import { askEdge } from './ingress/edge/edge-control.js';
import { edgePaths } from './ingress/edge/edge-paths.js';
import { ensureIngress, stopIngress, type RunningIngress } from './ingress/edge/ensure-ingress.js';
import { listenOnControlSocket, type ControlListener } from './ingress/edge/control-listener.js';
import { followEdgeRoutes, type EdgeRoutes } from './ingress/edge/follow-edge-routes.js';
import { platformHostNames } from './ingress/platform-hosts.js';
import { buildControlPlane, type ControlPlane } from './platform.js';
import { readReleaseSettings } from './releases/release-limits.js';

const usage = `Usage: svc-platform [--listen host:port] [--data dir] [--registration bootstrap|public|disabled] [--public-url url] [--log-level level]

Every flag has an environment variable: ${Object.entries(flagNames)
  .map(([key, flag]) => `--${flag} = ${envNames[key as keyof typeof envNames]}`)
  .join(', ')}. SVC_INGRESS_PROCESS=off serves the public port from this process (no separate ingress);
SVC_INGRESS_ROUTES=control-plane makes the ingress forward app traffic here too (default edge: it
proxies apps itself).
SIGTERM stops the control plane only (the ingress and the apps keep serving; the next start takes
them over); SIGINT (Ctrl-C) stops everything. See docs/operations.md.`;

/** Time between taking the control socket away and closing the server. */
const WITHDRAW_SETTLE_MS = 250;

/** Whether the public port belongs to a separate ingress process (default) or to this process. */
function ingressProcessEnabled(env: PlatformConfig['env']): boolean {
  const value = env.SVC_INGRESS_PROCESS ?? 'on';
  if (value === 'on' || value === '') return true;
  if (value === 'off') return false;
  throw new Error(`SVC_INGRESS_PROCESS: expected on or off, got ${value}`);
}

/** Who proxies app hosts when an ingress process runs: the ingress itself (default) or this process. */
function ingressRoutesMode(env: PlatformConfig['env']): 'edge' | 'control-plane' {
  const value = env.SVC_INGRESS_ROUTES ?? 'edge';
  if (value === 'edge' || value === '') return 'edge';
  if (value === 'control-plane') return 'control-plane';
  throw new Error(`SVC_INGRESS_ROUTES: expected edge or control-plane, got ${value}`);
}

/** Hand the route table to the ingress process (or take app routing back from it). */
async function routeThroughIngress(plane: ControlPlane, config: PlatformConfig, logger: Logger, mode: 'edge' | 'control-plane'): Promise<EdgeRoutes | null> {
  const socketPath = edgePaths(config.dataDir).ingressSocket;
  if (mode === 'control-plane') {
    await askEdge(socketPath, { op: 'clear-routes' });
    return null;
  }
  const routes = followEdgeRoutes({
    socketPath,
    ingress: plane.ingress,
    settings: { baseDomain: config.appDomain, platformHosts: [...platformHostNames(config)], trustProxy: config.trustProxy },
    logger,
  });
  if (!(await routes.attached(5_000)))
    logger.warn({ socketPath }, 'the ingress process did not take the routes yet; app requests go through the control plane until it does');
  return routes;
}

/**
 * How a signal ends the platform: SIGTERM (service managers, restarts) keeps the data plane —
 * ingress and apps — unless SVC_KEEP_APPS_ON_SHUTDOWN=false; SIGINT (Ctrl-C) stops everything.
 */
export function shutdownScope(signal: NodeJS.Signals, env: PlatformConfig['env']): 'control-plane' | 'everything' {
  if (signal === 'SIGINT') return 'everything';
  const keep = env.SVC_KEEP_APPS_ON_SHUTDOWN;
  return keep === 'false' || keep === '0' ? 'everything' : 'control-plane';
}

async function startListening(plane: ControlPlane, config: PlatformConfig, logger: Logger, ingress: RunningIngress | null): Promise<ControlListener | null> {
  if (!ingress) {
    await plane.app.listen({ host: config.listen.host, port: config.listen.port });
    const address = plane.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.listen.port;
    logger.info(
      {
        url: config.publicUrl ?? `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${port}`,
        dataDir: config.dataDir,
        registration: config.registration,
        ingressProcess: false,
      },
      'svc-platform listening',
    );
    return null;
  }
  const listener = await listenOnControlSocket(plane.app, edgePaths(config.dataDir).controlSocket);
  const { host, port } = ingress.status.address;
  logger.info(
    {
      url: config.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      dataDir: config.dataDir,
      registration: config.registration,
      ingressPid: ingress.status.pid,
      ingressStarted: ingress.started,
    },
    'svc-platform listening',
  );
  return listener;
}

/** Run the control plane until SIGINT/SIGTERM; returns the running plane (tests stop it with close()). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ControlPlane | undefined> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  let config: PlatformConfig;
  let separateIngress: boolean;
  let holdMs: number;
  let routesMode: 'edge' | 'control-plane';
  try {
    const parsed = parsePlatformConfig(argv, env, process.cwd());
    separateIngress = ingressProcessEnabled(parsed.env);
    routesMode = ingressRoutesMode(parsed.env);
    holdMs = readReleaseSettings(parsed.env).holdMs;
    // Apps outlive a SIGTERM by default; SIGINT stops them explicitly below.
    config = { ...parsed, env: { ...parsed.env, SVC_KEEP_APPS_ON_SHUTDOWN: parsed.env.SVC_KEEP_APPS_ON_SHUTDOWN ?? 'true' } };
  } catch (error) {
    process.stderr.write(`svc-platform: ${isSvcError(error) ? `${error.message} (${error.code})` : String((error as Error).message ?? error)}\n${usage}\n`);
    process.exitCode = configurationExitStatus['svc-platform'];
    return undefined;
  }
  const logger = createLogger({ level: config.logLevel });
  let plane: ControlPlane | undefined;
  let ingress: RunningIngress | null = null;
  let listener: ControlListener | null;
  let edgeRoutes: EdgeRoutes | null = null;
  try {
    // The port first: a taken address fails before anything else starts, and requests that arrive
    // while the control plane builds and re-adopts apps are held by the ingress, not refused.
    if (separateIngress) ingress = await ensureIngress({ dataDir: config.dataDir, listen: config.listen, holdMs, logger });
    plane = await buildControlPlane({ config, logger });
    // After the build, which re-adopted the running apps: the snapshot is the whole table.
    if (ingress) edgeRoutes = await routeThroughIngress(plane, config, logger, routesMode);
    listener = await startListening(plane, config, logger, ingress);
  } catch (error) {
    logger.fatal({ err: error, code: isSvcError(error) ? error.code : undefined }, 'svc-platform failed to start');
    edgeRoutes?.close();
    await plane?.close().catch(() => undefined);
    // An ingress this start created serves nothing yet; one found running keeps serving apps.
    if (ingress?.started) await stopIngress(config.dataDir).catch(() => false);
    // A feature's invalid setting (read while building) ends like one of the flags above.
    process.exitCode = platformStartExitStatus(error);
    return undefined;
  }
  const running = plane;

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const scope = shutdownScope(signal, config.env);
    logger.info(
      { signal, scope },
      scope === 'everything'
        ? 'shutting down the ingress, the apps and the control plane'
        : 'shutting down the control plane; the ingress and apps keep running',
    );
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 20 s; exiting');
      process.exit(1);
    }, 20_000);
    force.unref();
    const shutdown = async () => {
      // The ingress keeps its table and serves apps from it; nothing this process does while
      // closing (held requests expiring) is a route change for it.
      edgeRoutes?.close();
      // New connections now fail at once and the ingress holds them for the next control plane.
      // Connections it already accepted carry a request each; let their heads arrive before the
      // close, which drops connections with no request under way.
      if (listener) {
        listener.withdraw();
        await new Promise((resolve) => setTimeout(resolve, WITHDRAW_SETTLE_MS));
      }
      if (scope === 'everything') {
        // The ingress stops taking requests and finishes its running ones (served by us) first.
        if (separateIngress) await stopIngress(config.dataDir);
        await running.releases.driver.stopAll();
      }
      await running.close();
    };
    shutdown().then(
      () => {
        logger.info({ scope }, 'stopped');
        process.exitCode = 0;
        // Handles of detached apps (their output pipes, IPC) may keep the event loop alive; the
        // next control plane must not wait for them, so leave now that everything is closed.
        setTimeout(() => process.exit(0), 50).unref();
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return plane;
}

// Run directly (`node --import tsx src/platform-main.ts …`, used by tests to run current sources).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
