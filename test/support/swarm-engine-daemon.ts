// One test dockerd: started inside a node's network namespace with its own config, roots, pidfile and
// unix socket under one directory, and the raw Engine API calls the test swarm needs (JSON calls, and
// a streamed copy of an image from one daemon to another).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';

export interface TestDaemon {
  pid: number;
  socketPath: string;
  /** Why the daemon is gone, or null while it runs. */
  failed(): string | null;
}

const API = '/v1.41';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One Engine API call over the unix socket; resolves with the status and raw body. */
export function engineCall(socketPath: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { socketPath, method, path: `${API}${path}`, headers: payload ? { 'content-type': 'application/json' } : {}, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/**
 * `GET /images/{id}/get` from one daemon streamed into `POST /images/load` of another: the image
 * keeps its id (an import on each node would not: the config carries the import time).
 */
export function copyImage(fromSocket: string, toSocket: string, imageId: string, timeoutMs = 300_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void => reject(new Error(`copying image ${imageId}: ${error.message}`));
    const save = request({ socketPath: fromSocket, method: 'GET', path: `${API}/images/${encodeURIComponent(imageId)}/get`, timeout: timeoutMs }, (saved) => {
      if (saved.statusCode !== 200) {
        void readAll(saved).then((body) => fail(new Error(`save answered ${saved.statusCode}: ${body}`)), fail);
        return;
      }
      const load = request(
        { socketPath: toSocket, method: 'POST', path: `${API}/images/load?quiet=1`, headers: { 'content-type': 'application/x-tar' }, timeout: timeoutMs },
        (loaded) => {
          void readAll(loaded).then((body) => {
            // The load reports a broken archive inside a 200 stream, as {"error": …}.
            if (loaded.statusCode !== 200 || body.includes('"error"')) fail(new Error(`load answered ${loaded.statusCode}: ${body.slice(0, 500)}`));
            else resolve();
          }, fail);
        },
      );
      load.on('timeout', () => load.destroy(new Error('load timed out')));
      load.on('error', fail);
      saved.on('error', fail);
      saved.pipe(load);
    });
    save.on('timeout', () => save.destroy(new Error('save timed out')));
    save.on('error', fail);
    save.end();
  });
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, failed: () => string | null): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problem = failed();
    if (problem) throw new Error(`${what}: ${problem}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

function logTail(dir: string): string {
  try {
    return readFileSync(join(dir, 'dockerd.log'), 'utf8').trim().split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Start dockerd in `netns` with everything of its own under `dir`; resolves once it answers /_ping. */
export async function startDaemon(dir: string, netns: string): Promise<TestDaemon> {
  const socketPath = join(dir, 'docker.sock');
  // Our own (empty) config file, so a host /etc/docker/daemon.json never leaks into the test engine.
  writeFileSync(join(dir, 'daemon.json'), '{}\n');
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  // `nsenter --net` (not `ip netns exec`, which remounts /sys and breaks dockerd's cgroup detection).
  const daemon: ChildProcess = spawn(
    'nsenter',
    [
      `--net=/run/netns/${netns}`,
      'dockerd',
      `--config-file=${join(dir, 'daemon.json')}`,
      `--data-root=${join(dir, 'data')}`,
      `--exec-root=${join(dir, 'exec')}`,
      `--pidfile=${join(dir, 'dockerd.pid')}`,
      `--host=unix://${socketPath}`,
      '--bridge=none',
      '--userland-proxy=false',
      '--no-new-privileges',
    ],
    { stdio: ['ignore', log, log] },
  );
  closeSync(log);
  daemon.unref();
  let exited: string | null = null;
  daemon.once('exit', (code, signal) => (exited = `dockerd exited with ${code ?? signal}:\n${logTail(dir)}`));
  daemon.once('error', (error) => (exited = `dockerd did not start: ${error.message}`));
  const result: TestDaemon = { pid: daemon.pid ?? 0, socketPath, failed: () => exited };
  await waitFor('dockerd socket', 60_000, async () => ((await engineCall(socketPath, 'GET', '/_ping')).status === 200 ? true : undefined), result.failed);
  return result;
}
