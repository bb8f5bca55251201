// Start the real control plane (src/platform-main.ts via tsx) as a child process on a free
// loopback port with a temp data directory, and wait until GET /readyz answers 200.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { repoRoot } from './repo-root.js';

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
}

export interface StartedPlatform {
  /** Origin such as http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the server printed so far (stdout + stderr), for failure messages. */
  logs(): string;
  /** SIGTERM, then SIGKILL after 5 s; removes the data dir if this helper created it. */
  stop(): Promise<void>;
}

/** Start the control plane as a child process and resolve once it is ready. Retries once on a port race. */
export async function startPlatform(options: StartPlatformOptions = {}): Promise<StartedPlatform> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-platform-')));
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
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
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
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
      if (response.ok) return { url, port, dataDir, child, logs: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  await exited;
  throw new Error(`control plane was not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`);
}
