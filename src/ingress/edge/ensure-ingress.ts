// Control-plane side of the ingress process's lifecycle: find the ingress running for this data
// directory or start one detached (its own session, so it outlives this process), have it hand over
// to this control plane's ingress code when it runs other code, and stop it when everything stops.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { SvcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { askEdge, type EdgeStatus } from './edge-control.js';
import { edgePaths } from './edge-paths.js';
import { ingressBuild, ingressEntry } from './ingress-build.js';
import type { IngressStartMessage } from './start-message.js';

export interface IngressSettings {
  dataDir: string;
  listen: { host: string; port: number };
  holdMs: number;
  logger: Logger;
  /** How long to wait for a new ingress to listen (default 15 s). */
  startTimeoutMs?: number;
}

export interface RunningIngress {
  status: EdgeStatus;
  /** True when this call started it. */
  started: boolean;
}

/** `host:port` as the ingress is asked to listen (IPv6 in brackets). Pure. */
export function listenSpec(listen: { host: string; port: number }): string {
  return `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
}

/** node argv that runs the ingress entry next to this module: the .ts source under tsx, else dist. */
function ingressCommand(): string[] {
  const entry = ingressEntry();
  return entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry];
}

/** How long a running ingress may take to hand over to a successor that serves. */
const HANDOFF_TIMEOUT_MS = 30_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Ask the ingress of `dataDir` to stop (it finishes running requests first) and wait until it exited. */
export async function stopIngress(dataDir: string, timeoutMs = 15_000): Promise<boolean> {
  const reply = await askEdge(edgePaths(dataDir).ingressSocket, { op: 'stop' });
  if (!reply?.ok) return false;
  const deadline = Date.now() + timeoutMs;
  while (alive(reply.status.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  return true;
}

/**
 * The running ingress of `dataDir` when it listens where asked; otherwise the old one is stopped
 * (asked for another address) and a new one is started and awaited until it listens.
 */
export async function ensureIngress(settings: IngressSettings): Promise<RunningIngress> {
  const paths = edgePaths(settings.dataDir);
  const spec = listenSpec(settings.listen);
  const reply = await askEdge(paths.ingressSocket, { op: 'status' });
  if (reply?.ok && reply.status.listen === spec) {
    const build = ingressBuild();
    if (reply.status.build === build) return { status: reply.status, started: false };
    // Other ingress code (an upgrade, or a control plane run from another tree): the running one
    // hands its listening socket to a successor running ours, so no connection is refused.
    settings.logger.info(
      { pid: reply.status.pid, running: reply.status.build ?? 'unknown', ours: build },
      'the running ingress runs other code; handing its port over to this version',
    );
    const handed = await askEdge(paths.ingressSocket, { op: 'handoff', entry: ingressEntry() }, HANDOFF_TIMEOUT_MS);
    if (handed?.ok) {
      settings.logger.info({ was: reply.status.pid, now: handed.status.pid }, 'the ingress handed over');
      return { status: handed.status, started: false };
    }
    settings.logger.warn(
      { pid: reply.status.pid, error: handed?.ok === false ? handed.error : 'no answer' },
      'the running ingress did not hand over; it keeps serving with its own code',
    );
    return { status: reply.status, started: false };
  }
  if (reply?.ok) {
    settings.logger.info({ was: reply.status.listen, now: spec }, 'the running ingress listens elsewhere; replacing it');
    await stopIngress(settings.dataDir);
  }
  mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  const logFd = openSync(paths.logFile, 'a', 0o600);
  // The ingress needs none of the platform's SVC_* settings (secrets among them).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_')));
  const child = spawn(process.execPath, [...ingressCommand(), '--listen', spec, '--data', settings.dataDir, '--hold-ms', String(settings.holdMs)], {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
    env,
  });
  closeSync(logFd);
  const timeoutMs = settings.startTimeoutMs ?? 15_000;
  const message = await new Promise<IngressStartMessage | { type: 'exited'; detail: string }>((resolve) => {
    const timer = setTimeout(() => resolve({ type: 'exited', detail: `did not listen within ${timeoutMs} ms` }), timeoutMs);
    child.once('message', (m: IngressStartMessage) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ type: 'exited', detail: `exited with ${code ?? signal}` });
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ type: 'exited', detail: error.message });
    });
  });
  if (message.type === 'ready') {
    child.disconnect();
    child.unref();
    return { status: message.status, started: true };
  }
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (message.type === 'failed') throw new SvcError('SVC_INGRESS_START_FAILED', message.message);
  const tail = readFileSync(paths.logFile, 'utf8').slice(-2000);
  throw new SvcError('SVC_INGRESS_START_FAILED', `svc-ingress ${message.detail}; ${paths.logFile} ends with:\n${tail}`);
}
