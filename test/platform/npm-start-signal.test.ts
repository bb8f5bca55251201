// `npm start` is how the README runs svc: a SIGTERM to npm (a service manager stopping it, Ctrl-C)
// must reach svc-platform and shut it down cleanly, never leave it orphaned. (The port itself stays with
// the separate ingress process, which keeps holding requests for the next control plane.)
import { spawn } from 'node:child_process';
import { stopIngress } from '../../src/ingress/edge/ensure-ingress.js';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { alive } from '../support/process-alive.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

/** Every svc-platform process that runs on this data directory's behalf: found by its command line. */
async function platformPids(): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('bin/svc-platform.js') && (await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '')).includes(dataDirMarker))
      found.push(Number(name));
  }
  return found;
}
let dataDirMarker = '';

it('SIGTERM to `npm start` shuts svc-platform down (no orphan keeps the port)', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-npm-start-'));
  dataDirMarker = `SVC_DATA_DIR=${dataDir}`;
  // SIGTERM leaves the ingress process (the data plane) running by design; stop it before removing its directory.
  cleanup.push(async () => void (await stopIngress(dataDir)));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, SVC_LISTEN: '127.0.0.1:0', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  cleanup.push(async () => void npm.kill('SIGKILL'));
  const deadline = Date.now() + 30_000;
  while (!output.includes('svc-platform listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(output).toContain('svc-platform listening');
  const pids = await platformPids();
  expect(pids.length).toBeGreaterThan(0);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  npm.kill('SIGTERM');
  await exited;
  const gone = Date.now() + 10_000;
  while (pids.some(alive) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
  expect(output).toContain('shutting down');
  for (const pid of pids) expect(alive(pid)).toBe(false);
}, 60_000);
