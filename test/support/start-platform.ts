// Start the real control plane (src/platform-main.ts via tsx) as a child process on a free
// loopback port with a temp data directory, and wait until GET /readyz answers 200. The public port
// belongs to the ingress process it starts (or finds running for the data directory).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { repoRoot } from './repo-root.js';
import { alive } from './process-alive.js';

export interface StartPlatformOptions {
  /** Data directory; a fresh temp dir (removed on stop) when omitted. */
  dataDir?: string;
  /** Extra environment for the server (e.g. SVC_REGISTRATION). */
  env?: Record<string, string>;
  /** Extra argv after --listen/--data. */
  args?: string[];
  /** How long to wait for /readyz (default 30 s). */
  readyTimeoutMs?: number;
  /** Entry file relative to the repo root (default src/platform-main.ts). */
  entry?: string;
  /** Listen port (default: a free one); pass an earlier start's port to reuse its running ingress. */
  port?: number;
}

export interface StartedPlatform {
  /** Origin such as http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the server printed so far (stdout + stderr), for failure messages. */
  logs(): string;
  /** The ingress process serving `url` (null with SVC_INGRESS_PROCESS=off). */
  ingressPid: number | null;
  /**
   * Stop everything: SIGINT (ingress, apps, control plane), then SIGKILL after 10 s; an ingress or
   * apps a killed control plane left behind are killed too; removes the data dir if this helper created it.
   */
  stop(): Promise<void>;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

async function ingressPidOf(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, 'run', 'ingress.json'), 'utf8').catch(() => null);
  return text ? (JSON.parse(text) as { pid: number }).pid : null;
}

/** Whether a control plane answers on the data dir's control socket. */
async function controlPlaneAnswers(dataDir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path: join(dataDir, 'run', 'control.sock') });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Apps a killed control plane left running (nobody else adopted them): their launcher and sandbox
 * processes from the supervisor's record, killed so a test leaves nothing behind.
 */
async function killOrphanedApps(dataDir: string): Promise<void> {
  if (await controlPlaneAnswers(dataDir)) return;
  const text = await readFile(join(dataDir, 'supervisor.json'), 'utf8').catch(() => null);
  if (!text) return;
  const state = JSON.parse(text) as { projects: Record<string, { record: { pid?: number; sandbox?: { initPid: number; netPid?: number } } | null }> };
  for (const { record } of Object.values(state.projects)) {
    for (const pid of [record?.pid, record?.sandbox?.initPid, record?.sandbox?.netPid]) {
      if (pid === undefined) continue;
      kill(-pid, 'SIGKILL');
      kill(pid, 'SIGKILL');
    }
  }
}

/** Start the control plane as a child process and resolve once it is ready. Retries once on a port race. */
export async function startPlatform(options: StartPlatformOptions = {}): Promise<StartedPlatform> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-platform-')));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(port, dataDir, ownDir, options);
    } catch (error) {
      lastError = error;
      if (!String((error as Error).message).includes('EADDRINUSE')) break;
    }
  }
  if (ownDir) await rm(dataDir, { recursive: true, force: true });
  throw lastError;
}

async function startOn(port: number, dataDir: string, ownDir: boolean, options: StartPlatformOptions): Promise<StartedPlatform> {
  const entry = join(repoRoot, options.entry ?? 'src/platform-main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry, '--listen', `127.0.0.1:${port}`, '--data', dataDir, ...(options.args ?? [])], {
    cwd: repoRoot,
    env: { ...process.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-200_000)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-200_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  let ingressPid: number | null = null;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    // A control plane killed earlier (or one that did not finish) leaves its data plane running.
    ingressPid ??= await ingressPidOf(dataDir);
    if (ingressPid !== null && alive(ingressPid)) {
      kill(ingressPid, 'SIGTERM');
      const deadline = Date.now() + 5_000;
      while (alive(ingressPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      kill(ingressPid, 'SIGKILL');
    }
    await killOrphanedApps(dataDir);
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`control plane exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${output}`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) {
        ingressPid = await ingressPidOf(dataDir);
        return { url, port, dataDir, child, ingressPid, logs: () => output, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop().catch(() => undefined);
  throw new Error(`control plane was not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`);
}
