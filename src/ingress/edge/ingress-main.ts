// Entry of `svc-ingress` (bin/svc-ingress.js): the small process that owns the public port and
// outlives the control plane. It proxies app hosts straight to their releases with its own copy of
// the route table (edge-routing.ts), forwards everything else (and every upgrade) to
// `<data>/run/control.sock`, and holds those while that socket is down. `svc-platform` starts it (detached, own session) or
// finds it running; it stops on SIGTERM/SIGINT or the `stop` command, letting running requests finish.
// SIGUSR2 or the `handoff` command start a successor that inherits the listening socket (handoff.ts).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { atomicWriteFileSync } from '../../core/atomic-write.js';
import { askEdge, serveEdgeCommands, type EdgeCommand, type EdgeReply, type EdgeStatus } from './edge-control.js';
import { edgePaths, socketPathFits } from './edge-paths.js';
import { EdgeRouting } from './edge-routing.js';
import { forwardRequest, InFlight } from './forward-request.js';
import { forwardUpgrade } from './forward-upgrade.js';
import { acceptableEntry, receiveListener, startSuccessor, type Successor } from './handoff.js';
import { ingressBuild } from './ingress-build.js';
import type { IngressStartMessage } from './start-message.js';

export interface IngressArgs {
  listen: { host: string; port: number; spec: string };
  dataDir: string;
  holdMs: number;
  /** How long running requests may finish after a stop before they are cut (default 10 s). */
  drainMs: number;
  /** Started by a running ingress that hands it the listening socket over IPC. */
  handoff: boolean;
}

/** `--listen host:port --data dir --hold-ms n [--drain-ms n] [--handoff]`. Throws a message on bad input. */
export function parseIngressArgs(argv: string[]): IngressArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      listen: { type: 'string' },
      data: { type: 'string' },
      'hold-ms': { type: 'string' },
      'drain-ms': { type: 'string' },
      handoff: { type: 'boolean' },
    },
    strict: true,
  });
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(values.listen ?? '');
  if (!match || Number(match[2]) > 65535) throw new Error('--listen host:port is required');
  if (!values.data) throw new Error('--data dir is required');
  const holdMs = Number(values['hold-ms'] ?? 30_000);
  const drainMs = Number(values['drain-ms'] ?? 10_000);
  if (!Number.isInteger(holdMs) || holdMs < 0 || !Number.isInteger(drainMs) || drainMs < 0) throw new Error('--hold-ms and --drain-ms are whole milliseconds');
  return {
    listen: { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]), spec: values.listen! },
    dataDir: values.data,
    holdMs,
    drainMs,
    handoff: values.handoff === true,
  };
}

function log(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, name: 'svc-ingress', ...fields })}\n`);
}

function fail(code: string, message: string): never {
  log({ level: 'fatal', code, msg: message });
  process.send?.({ type: 'failed', code, message } satisfies IngressStartMessage);
  process.exit(1);
}

/** Listen on host:port, or on the socket a predecessor handed over. */
function listenPublic(server: Server, on: { host: string; port: number } | NetServer): Promise<{ host: string; port: number }> {
  const { host, port } = on instanceof NetServer ? { host: '', port: 0 } : on;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? { host: address.address, port: address.port } : { host, port });
    };
    if (on instanceof NetServer) server.listen(on, listening);
    else server.listen({ host, port }, listening);
  });
}

/** Stop accepting without closing idle keep-alive connections (http.Server#close would): their next request gets `Connection: close`. */
function stopAccepting(server: Server): void {
  NetServer.prototype.close.call(server);
}

/** Whether the run file at `path` is still this process's (a successor replaces them). */
function ownsPidFile(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { pid?: number }).pid === process.pid;
  } catch {
    return false;
  }
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
    if (!socketPathFits(path))
      fail('SVC_INGRESS_START_FAILED', `The socket path ${path} is longer than 107 bytes; use a shorter data directory (SVC_DATA_DIR).`);
  }
  if (!args.handoff && (await askEdge(paths.ingressSocket, { op: 'status' })))
    fail('SVC_INGRESS_START_FAILED', `An ingress already runs for ${args.dataDir} (${paths.ingressSocket}).`);

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
  // Handed over: ask for the listening socket first (records the predecessor passes on come later).
  const inherited = args.handoff ? receiveListener((records, dropped) => routing.outbox.adopt(records, dropped)) : null;
  routing.load();
  const toControlPlane = forwardRequest(options, inFlight);
  const leave = (): void => inFlight.leave();
  // After a handoff this process only finishes what its connections still send: one more answer each.
  let handedOff = false;
  // A held request may wait up to the hold bound before its body is read: no whole-request timeout
  // (the control plane times out idle uploads itself); the header timeout still guards slow heads.
  const server = createServer({ requestTimeout: 0 }, (req, res) => {
    if (handedOff) res.shouldKeepAlive = false;
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
    address = await listenPublic(server, inherited ? await inherited : args.listen);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    fail('SVC_INGRESS_START_FAILED', `svc-ingress cannot listen on ${args.listen.spec}: ${code} ${(error as Error).message}`);
  }
  const build = ingressBuild();
  const status = (): EdgeStatus => ({ pid: process.pid, listen: args.listen.spec, address, startedAt, build, holds: { ...holds }, routing: routing.status() });
  const startedAt = Date.now();
  let socketInode = -1;
  // Run files a successor replaced are its own: only this process's are removed.
  const removeOwnFiles = (): void => {
    try {
      if (statSync(paths.ingressSocket).ino === socketInode) rmSync(paths.ingressSocket, { force: true });
    } catch {
      // already gone
    }
    if (ownsPidFile(paths.pidFile)) rmSync(paths.pidFile, { force: true });
  };
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
      removeOwnFiles();
      // `stop` comes from a platform stopping everything, apps included: the saved routes would
      // point at stopped apps. A signal alone (or a crash) keeps them for the next ingress.
      if (reason === 'stop command') rmSync(paths.routesFile, { force: true });
      log({ level: 'info', msg: 'stopped', holds });
      process.exit(0);
    })());
  /**
   * The successor serves: stop accepting (the socket stays open in the successor, so the port never
   * stops listening), let the control plane re-attach there, finish running requests and keep-alive
   * connections (each gets one more answer, with `Connection: close`), pass the request records on, exit.
   */
  const retire = (successor: Successor): Promise<void> =>
    (stopping ??= (async () => {
      handedOff = true;
      stopAccepting(server);
      routing.detach();
      commands.close();
      log({ level: 'info', msg: 'handed over; finishing', successor: successor.status.pid, inFlight: inFlight.count, tunnels: tunnels.size });
      const connectionsClosed = new Promise<void>((resolve) => server.once('close', () => resolve()));
      // Past the drain bound, whatever is left is cut (WebSockets included: the proxy closes them).
      const cut = setTimeout(() => {
        server.closeAllConnections();
        for (const tunnel of tunnels) tunnel.destroy();
        void routing.close(0, { expireHolds: false });
      }, args.drainMs);
      // The app connections stay until the last client connection closed: it may still send a request.
      await Promise.all([inFlight.idle(), connectionsClosed]);
      clearTimeout(cut);
      await routing.close(args.drainMs, { expireHolds: false });
      const left = routing.outbox.take();
      if (left.records.length > 0 || left.dropped > 0) await successor.send({ type: 'records', ...left });
      removeOwnFiles();
      log({ level: 'info', msg: 'stopped after handoff', successor: successor.status.pid, recordsPassed: left.records.length, holds });
      process.exit(0);
    })());
  let handingOff: Promise<EdgeReply> | null = null;
  let reclaimCommands = async (): Promise<void> => undefined;
  const handoff = (entry: string | undefined, via: string): Promise<EdgeReply> => {
    if (stopping) return Promise.resolve({ ok: false, error: 'this ingress is stopping' });
    const successorEntry = entry ?? process.argv[1] ?? '';
    if (!acceptableEntry(successorEntry)) return Promise.resolve({ ok: false, error: `not an ingress entry: ${successorEntry}` });
    return (handingOff ??= (async (): Promise<EdgeReply> => {
      log({ level: 'info', msg: 'handing over', via, entry: successorEntry });
      routing.saveNow();
      const argv = ['--listen', args.listen.spec, '--data', args.dataDir, '--hold-ms', String(args.holdMs), '--drain-ms', String(args.drainMs)];
      try {
        const successor = await startSuccessor({ entry: successorEntry, args: argv, server, logFile: paths.logFile });
        void retire(successor);
        return { ok: true, status: successor.status };
      } catch (error) {
        handingOff = null;
        await reclaimCommands().catch((reclaim: unknown) =>
          log({ level: 'error', msg: 'cannot take the command socket back', err: (reclaim as Error).message }),
        );
        log({ level: 'error', msg: 'handoff failed; this ingress keeps serving', err: (error as Error).message });
        return { ok: false, error: (error as Error).message };
      }
    })());
  };
  const handle = (command: EdgeCommand): EdgeReply | Promise<EdgeReply> => {
    if (command.op === 'stop') setImmediate(() => void stop('stop command'));
    if (command.op === 'clear-routes') routing.clear();
    if (command.op === 'handoff') return handoff(command.entry, 'command');
    if (command.op === 'routes') return { ok: true, status: status(), routes: routing.list() };
    return { ok: true, status: status() };
  };
  let commands: NetServer;
  // Listen under a private name and rename it into place: a predecessor's socket is replaced in one
  // step, and closing unlinks only the private name, never a successor's socket.
  const privateSocket = join(paths.runDir, `.i${process.pid}`);
  const openCommands = async (): Promise<void> => {
    rmSync(privateSocket, { force: true });
    commands = await serveEdgeCommands(privateSocket, handle, (socket, rest) => routing.attach(socket, rest));
    chmodSync(privateSocket, 0o600);
    renameSync(privateSocket, paths.ingressSocket);
    socketInode = statSync(paths.ingressSocket).ino;
  };
  // A successor that failed after taking the command socket: take it back (this process serves on).
  reclaimCommands = async () => {
    const ino = statSync(paths.ingressSocket, { throwIfNoEntry: false })?.ino;
    if (ino === socketInode) return;
    commands.close();
    await openCommands();
    atomicWriteFileSync(paths.pidFile, `${JSON.stringify({ pid: process.pid, listen: args.listen.spec, address, startedAt })}\n`, { mode: 0o600 });
    log({ level: 'warn', msg: 'took the command socket back from a failed successor' });
  };
  try {
    await openCommands();
    atomicWriteFileSync(paths.pidFile, `${JSON.stringify({ pid: process.pid, listen: args.listen.spec, address, startedAt })}\n`, { mode: 0o600 });
  } catch (error) {
    fail('SVC_INGRESS_START_FAILED', `svc-ingress cannot open ${paths.ingressSocket}: ${(error as Error).message}`);
  }
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => undefined); // its terminal closing is no reason to drop traffic
  process.on('SIGUSR2', () => void handoff(undefined, 'SIGUSR2'));
  log({ level: 'info', msg: 'svc-ingress listening', address, controlSocket: paths.controlSocket, holdMs: args.holdMs, build, handoff: args.handoff });
  process.send?.({ type: 'ready', status: status() } satisfies IngressStartMessage);
  // The process that spawned it (a control plane, or the ingress it succeeds) lets go once it read
  // `ready`; the ingress must not depend on it.
  process.channel?.unref();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
