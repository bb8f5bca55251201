// Entry of `svc-ingress` (bin/svc-ingress.js): the small process that owns the public port and
// outlives the control plane. It proxies app hosts straight to their releases with its own copy of
// the route table (edge-routing.ts), forwards everything else (and every upgrade) to
// `<data>/run/control.sock`, and holds those while that socket is down. `svc-platform` starts it (detached, own session) or
// finds it running; it stops on SIGTERM/SIGINT or the `stop` command, letting running requests finish.
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { atomicWriteFileSync } from '../../core/atomic-write.js';
import { askEdge, serveEdgeCommands, type EdgeCommand, type EdgeReply, type EdgeStatus } from './edge-control.js';
import { edgePaths, socketPathFits } from './edge-paths.js';
import { EdgeRouting } from './edge-routing.js';
import { forwardRequest, InFlight } from './forward-request.js';
import { forwardUpgrade } from './forward-upgrade.js';

/** Sent over IPC to the process that spawned the ingress. */
export type IngressStartMessage = { type: 'ready'; status: EdgeStatus } | { type: 'failed'; code: string; message: string };

export interface IngressArgs {
  listen: { host: string; port: number; spec: string };
  dataDir: string;
  holdMs: number;
  /** How long running requests may finish after a stop before they are cut (default 10 s). */
  drainMs: number;
}

/** `--listen host:port --data dir --hold-ms n [--drain-ms n]`. Throws a message on bad input. */
export function parseIngressArgs(argv: string[]): IngressArgs {
  const { values } = parseArgs({ args: argv, options: { listen: { type: 'string' }, data: { type: 'string' }, 'hold-ms': { type: 'string' }, 'drain-ms': { type: 'string' } }, strict: true });
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(values.listen ?? '');
  if (!match || Number(match[2]) > 65535) throw new Error('--listen host:port is required');
  if (!values.data) throw new Error('--data dir is required');
  const holdMs = Number(values['hold-ms'] ?? 30_000);
  const drainMs = Number(values['drain-ms'] ?? 10_000);
  if (!Number.isInteger(holdMs) || holdMs < 0 || !Number.isInteger(drainMs) || drainMs < 0) throw new Error('--hold-ms and --drain-ms are whole milliseconds');
  return { listen: { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]), spec: values.listen! }, dataDir: values.data, holdMs, drainMs };
}

function log(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, name: 'svc-ingress', ...fields })}\n`);
}

function fail(code: string, message: string): never {
  log({ level: 'fatal', code, msg: message });
  process.send?.({ type: 'failed', code, message } satisfies IngressStartMessage);
  process.exit(1);
}

function listenPublic(server: Server, host: string, port: number): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? { host: address.address, port: address.port } : { host, port });
    });
  });
}

/** Run the ingress until stopped. */
export async function main(argv: string[]): Promise<void> {
  let args: IngressArgs;
  try {
    args = parseIngressArgs(argv);
  } catch (error) {
    fail('SVC_INGRESS_START_FAILED', `svc-ingress: ${(error as Error).message}`);
  }
  const paths = edgePaths(args.dataDir);
  mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  for (const path of [paths.controlSocket, paths.ingressSocket]) {
    if (!socketPathFits(path)) fail('SVC_INGRESS_START_FAILED', `The socket path ${path} is longer than 107 bytes; use a shorter data directory (SVC_DATA_DIR).`);
  }
  if (await askEdge(paths.ingressSocket, { op: 'status' })) fail('SVC_INGRESS_START_FAILED', `An ingress already runs for ${args.dataDir} (${paths.ingressSocket}).`);
  rmSync(paths.ingressSocket, { force: true }); // stale: nothing answered

  const holds = { count: 0, unavailable: 0, longestMs: 0 };
  const options = {
    controlSocket: paths.controlSocket,
    holdMs: args.holdMs,
    onHeld(heldMs: number, outcome: 'served' | 'unavailable' | 'gone') {
      holds.count++;
      if (outcome === 'unavailable') holds.unavailable++;
      holds.longestMs = Math.max(holds.longestMs, heldMs);
    },
  };
  const inFlight = new InFlight();
  const tunnels = new Set<Duplex>();
  const routing = new EdgeRouting(paths.routesFile, log);
  routing.load();
  const toControlPlane = forwardRequest(options, inFlight);
  const leave = (): void => inFlight.leave();
  // A held request may wait up to the hold bound before its body is read: no whole-request timeout
  // (the control plane times out idle uploads itself); the header timeout still guards slow heads.
  const server = createServer({ requestTimeout: 0 }, (req, res) => {
    inFlight.enter();
    if (routing.route(req, res)) res.once('close', leave);
    else {
      inFlight.leave();
      toControlPlane(req, res);
    }
  });
  const upgradeToControlPlane = forwardUpgrade(options, tunnels);
  // An app's WebSocket goes straight to its release (counted by the routing's proxy); the rest to the control plane.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!routing.upgrade(req, socket, head)) upgradeToControlPlane(req, socket, head);
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  let address: { host: string; port: number };
  try {
    address = await listenPublic(server, args.listen.host, args.listen.port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    fail('SVC_INGRESS_START_FAILED', `svc-ingress cannot listen on ${args.listen.spec}: ${code} ${(error as Error).message}`);
  }
  const status = (): EdgeStatus => ({ pid: process.pid, listen: args.listen.spec, address, startedAt, holds: { ...holds }, routing: routing.status() });
  const startedAt = Date.now();
  let stopping: Promise<void> | null = null;
  const stop = (reason: string): Promise<void> =>
    (stopping ??= (async () => {
      log({ level: 'info', msg: 'stopping', reason, inFlight: inFlight.count, tunnels: tunnels.size });
      server.close();
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), args.drainMs);
      await Promise.all([inFlight.idle(), routing.close(args.drainMs)]);
      clearTimeout(cut);
      for (const tunnel of tunnels) tunnel.destroy();
      commands.close();
      rmSync(paths.ingressSocket, { force: true });
      rmSync(paths.pidFile, { force: true });
      // `stop` comes from a platform stopping everything, apps included: the saved routes would
      // point at stopped apps. A signal alone (or a crash) keeps them for the next ingress.
      if (reason === 'stop command') rmSync(paths.routesFile, { force: true });
      log({ level: 'info', msg: 'stopped', holds });
      process.exit(0);
    })());
  const handle = (command: EdgeCommand): EdgeReply => {
    if (command.op === 'stop') setImmediate(() => void stop('stop command'));
    if (command.op === 'clear-routes') routing.clear();
    if (command.op === 'routes') return { ok: true, status: status(), routes: routing.list() };
    return { ok: true, status: status() };
  };
  let commands: Awaited<ReturnType<typeof serveEdgeCommands>>;
  try {
    commands = await serveEdgeCommands(paths.ingressSocket, handle, (socket, rest) => routing.attach(socket, rest));
    chmodSync(paths.ingressSocket, 0o600);
    atomicWriteFileSync(paths.pidFile, `${JSON.stringify({ pid: process.pid, listen: args.listen.spec, address, startedAt })}\n`, { mode: 0o600 });
  } catch (error) {
    fail('SVC_INGRESS_START_FAILED', `svc-ingress cannot open ${paths.ingressSocket}: ${(error as Error).message}`);
  }
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => undefined); // its terminal closing is no reason to drop traffic
  log({ level: 'info', msg: 'svc-ingress listening', address, controlSocket: paths.controlSocket, holdMs: args.holdMs });
  process.send?.({ type: 'ready', status: status() } satisfies IngressStartMessage);
  // The spawning control plane disconnects once it read `ready`; the ingress must not depend on it.
  process.channel?.unref();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
