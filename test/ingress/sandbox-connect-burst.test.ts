// A burst of new upstream connections to a sandboxed app through the ingress. The app's port used to be
// forwarded by slirp4netns, whose listening socket has a backlog of 1: hundreds of held requests released
// at once stalled for seconds there and failed. The host forward (socat, deep accept queue) takes them.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningApp } from '../../runner/app-runner.js';
import { checkHealth } from '../../runner/health-check.js';
import { LogStore } from '../../runner/log-store.js';
import { createSandboxRunner, readSandboxSettings } from '../../runner/sandbox/sandbox-settings.js';
import { commandComponent, requireComponents, skipOrFail } from '../support/require-components.js';
import { appSpec, eventually, makeRoot } from '../runner/runner-helpers.js';
import { startListeningPlane, type ListeningPlane } from './support.js';

const gate = requireComponents('sandboxed app behind the ingress', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
  commandComponent('socat', ['socat', '-V']),
]);
const BURST = 300;

let plane: ListeningPlane;
let app: RunningApp;
let root: string;

beforeAll(async () => {
  if (gate.skip) return;
  gate.assertPresent();
  plane = await startListeningPlane();
  let releaseDir: string;
  ({ root, releaseDir } = await makeRoot());
  // As root, a uid of its own (as svc runs apps): RLIMIT_NPROC then applies, and every forwarded
  // connection costs a forwarder process of that uid.
  const runner = createSandboxRunner(readSandboxSettings({}), {
    runsDir: join(root, 'runs'),
    logs: new LogStore({ dir: join(root, 'logs') }),
    stopGraceMs: 2_000,
    uidFor: () => 240_000 + (process.pid % 1000),
  });
  app = await runner.start(appSpec(root, releaseDir));
  await eventually(async () => (await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 500 }).catch(() => null))?.ok, 15_000);
}, 60_000);
afterAll(async () => {
  await app?.stop({ graceMs: 1_000 });
  await plane?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

it(`answers ${BURST} held requests released at once to a new target without a failure`, async (ctx) => {
  if (gate.skip) return skipOrFail(ctx, 'bubblewrap, slirp4netns or socat is missing');
  // Held requests are all dispatched the moment the project's next target is switched in (a migration
  // deploy, a restore): the pool then needs hundreds of connections at the same instant.
  const routes = plane.plane.ingress.routes;
  routes.setProject({ id: 'prj_burst', slug: 'burst' }, null, null);
  await routes.hold('prj_burst', 30_000);
  const one = () =>
    new Promise<string>((resolve) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: plane.port, path: '/pids', agent: false, headers: { host: `burst.localhost:${plane.port}` }, timeout: 20_000 },
        (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => resolve((error as { code?: string }).code ?? error.message));
      req.end();
    });
  const pending = Promise.all(Array.from({ length: BURST }, one));
  await eventually(() => routes.get('prj_burst')?.hold?.waiters.size === BURST, 15_000);
  const began = performance.now();
  await routes.switchUpstream('prj_burst', { host: app.host, port: app.port }, 'rel_1');
  const answers = await pending;
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
  expect(counts).toEqual({ '200': BURST });
  expect(performance.now() - began).toBeLessThan(15_000);
}, 60_000);
