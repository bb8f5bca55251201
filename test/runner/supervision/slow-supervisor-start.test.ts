// A supervisor that takes longer to boot and start its app than one lease (a loaded host, a slow disk, a
// cold image) must not find its lease expired the moment it starts supervising: the controller renews
// it from the spawn on, not only once the app reported started.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningApp } from '../../../runner/app-runner.js';
import { checkHealth } from '../../../runner/health-check.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { SupervisedRunner } from '../../../runner/supervision/supervised-runner.js';
import { appSpec, makeRoot } from '../runner-helpers.js';
import { waitFor } from './supervision-helpers.js';

const LEASE_MS = 2000;

let root: string;
let releaseDir: string;
let runner: SupervisedRunner | undefined;
const apps: RunningApp[] = [];

beforeEach(async () => {
  ({ root, releaseDir } = await makeRoot());
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
  runner?.close();
  await waitFor(() => listFences(join(root, 'fences')).length === 0, 20_000, 'supervisors cleaned up');
  await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 40_000);

it('keeps an app whose supervisor took longer than one lease to start it', async () => {
  // The lease sent with the start is the clock's first reading; it reads as run out already, as when
  // booting the supervisor and starting the app took longer than one lease. Later readings are true.
  let readings = 0;
  const clock = { now: () => Date.now() - (readings++ === 0 ? 2 * LEASE_MS : 0) };
  runner = new SupervisedRunner({
    runner: { kind: 'process', runsDir: join(root, 'runs'), logsDir: join(root, 'logs'), stopGraceMs: 500 },
    fencesDir: join(root, 'fences'),
    holder: 'slow-start-test',
    leaseMs: LEASE_MS,
    renewMs: 100,
    clock,
  });
  const app = await runner.start(appSpec(root, releaseDir));
  apps.push(app);
  expect(readings).toBeGreaterThan(1);

  const health = await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 10_000, exited: app.wait() });
  expect(health).toMatchObject({ ok: true });
  // More than a lease later it still runs: renewals keep it, nothing stopped it at the first look.
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
  expect(app.exited).toBeNull();
}, 30_000);
