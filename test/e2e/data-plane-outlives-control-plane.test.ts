// The data plane outlives the control plane: with steady traffic through the public port (app GETs
// over keep-alive and new connections, POSTs with bodies, platform API calls), the control plane is
// stopped with SIGTERM and started again, then killed with SIGKILL and started again. The ingress
// process routes the app itself, so no app request fails and app traffic keeps flowing while the
// control plane is down; the app is never restarted; request metrics of that time arrive once it is
// back; a migration deploy afterwards holds and then routes to the new release; SIGINT stops everything.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { askEdge } from '../../src/ingress/edge/edge-control.js';
import { edgePaths } from '../../src/ingress/edge/edge-paths.js';
import { removeDataDir } from '../releases/release-support.js';
import { bootstrapAccount } from '../support/account.js';
import { deployFixture, deployNext } from '../support/deploy-fixture.js';
import { mixedTraffic, type TrafficSample } from '../support/mixed-traffic.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { alive } from '../support/process-alive.js';

let root: string | undefined;
const planes: StartedPlatform[] = [];

afterAll(async () => {
  for (const plane of planes.reverse()) await plane.stop();
  if (root) await removeDataDir(root);
}, 60_000);

async function appRecord(dataDir: string, projectId: string): Promise<{ id: string; pid: number }> {
  const state = JSON.parse(await readFile(join(dataDir, 'supervisor.json'), 'utf8')) as {
    projects: Record<string, { record: { id: string; pid?: number; sandbox?: { initPid: number } } }>;
  };
  const record = state.projects[projectId]!.record;
  return { id: record.id, pid: record.sandbox?.initPid ?? record.pid! };
}

async function ended(plane: StartedPlatform, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise<void>((resolve) => plane.child.once('exit', () => resolve()));
  plane.child.kill(signal);
  await exited;
}

const LOOPS_PER_KIND = 4;
const APP_KINDS = new Set([0, 1, 2]);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** App requests sent in [fromMs, toMs): how many succeeded and the slowest. */
function appFigures(samples: TrafficSample[], fromMs: number, toMs: number): { ok: number; longestMs: number } {
  const window = samples.filter((s) => APP_KINDS.has(s.kind) && s.sentAtMs >= fromMs && s.sentAtMs < toMs);
  return { ok: window.filter((s) => s.ok).length, longestMs: Math.round(Math.max(0, ...window.map((s) => s.ms))) };
}

it('fails no app request across a SIGTERM restart, a SIGKILL restart and a migration deploy; app traffic flows while the control plane is down', async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-data-plane-'));
  const dataDir = join(root, 'data');
  const first = await startPlatform({ dataDir });
  planes.push(first);
  const account = await bootstrapAccount(first.url);
  const app = await deployFixture(first.url, account, { slug: 'steady', workDir: root });
  const before = await appRecord(dataDir, app.projectId);
  expect(alive(before.pid)).toBe(true);

  const traffic = mixedTraffic(
    { origin: first.url, appHost: `steady.localhost:${first.port}`, apiPath: `/api/projects/${app.projectId}`, token: account.accessToken },
    LOOPS_PER_KIND,
  );
  const phases: Record<string, number> = {};
  const phase = (name: string) => (phases[name] = Math.round(traffic.elapsedMs()));
  await pause(1_500);
  const steadyPerSecond = traffic.okSoFar() / (traffic.elapsedMs() / 1000);
  phase('SIGTERM');
  await ended(first, 'SIGTERM');
  phase('exited');
  expect(alive(first.ingressPid!)).toBe(true);
  const second = await startPlatform({ dataDir, port: first.port });
  planes.push(second);
  phase('second ready');
  expect(second.ingressPid).toBe(first.ingressPid);
  await pause(1_500);
  second.child.kill('SIGKILL');
  phase('SIGKILL');
  await new Promise<void>((resolve) =>
    second.child.exitCode !== null || second.child.signalCode !== null ? resolve() : second.child.once('exit', () => resolve()),
  );
  const third = await startPlatform({ dataDir, port: first.port });
  planes.push(third);
  phase('third ready');
  await pause(1_000);
  // The same app process served throughout: re-adopted twice, never restarted.
  expect(await appRecord(dataDir, app.projectId)).toEqual(before);
  // A deploy with a migration stops the app first: the ingress holds the app's requests meanwhile.
  phase('deploy');
  const next = await deployNext(third.url, account, app.projectId, 'healthy-v2', root);
  phase('deployed');
  await pause(1_000);
  const report = await traffic.stop();
  const served = (await (await request(`${third.url}/`, { headers: { host: `steady.localhost:${third.port}` } })).body.json()) as {
    release?: string;
    version?: number;
  };

  const status = await askEdge(edgePaths(dataDir).ingressSocket, { op: 'status' });
  // Requests the first release served (all of them before the deploy).
  const metrics = (await account.api<{ totals: { requests: number } }>('GET', `/api/projects/${app.projectId}/metrics?window=1h&releaseId=${app.releaseId}`))
    .totals;
  const down = {
    sigterm: appFigures(report.samples, phases.exited!, phases['second ready']!),
    sigkill: appFigures(report.samples, phases.SIGKILL!, phases['third ready']!),
  };
  const restartMs = { sigterm: phases['second ready']! - phases.exited!, sigkill: phases['third ready']! - phases.SIGKILL! };
  // From the first restart to the deploy (the traffic's first requests open connections and warm up).
  const longestAppMs = appFigures(report.samples, phases.SIGTERM!, phases.deploy!).longestMs;
  const appOkAfterKill = appFigures(report.samples, phases.SIGKILL!, phases.deploy!).ok;
  console.log(
    `data plane restart: ${report.ok} ok, ${report.failures.length} failed, ${report.perSecond.toFixed(0)} req/s (${steadyPerSecond.toFixed(0)} before the restarts); control plane down ${JSON.stringify(restartMs)} ms, app requests served meanwhile ${JSON.stringify(down)}; longest app request from the SIGTERM to the deploy ${longestAppMs} ms, during the migration deploy ${appFigures(report.samples, phases.deploy!, phases.deployed!).longestMs} ms, longest answer overall ${report.longestMs.toFixed(0)} ms; metrics count ${metrics.requests} requests of the first release (${appOkAfterKill} app requests answered from the SIGKILL to the deploy); ingress ${JSON.stringify(status?.ok ? { holds: status.status.holds, routing: status.status.routing } : null)}; ${JSON.stringify(phases)}; failures ${JSON.stringify(report.failures)}; slow app requests [kind, sent at, ms] ${JSON.stringify(
      report.samples
        .filter((x) => APP_KINDS.has(x.kind) && x.ms > 300)
        .slice(0, 20)
        .map((x) => [x.kind, Math.round(x.sentAtMs), Math.round(x.ms)]),
    )}`,
  );
  // No app request fails, whatever happens to the control plane; a platform API GET the killed
  // control plane had not answered is retried by the ingress once the next one listens.
  expect(report.failures.filter((f) => APP_KINDS.has(f.kind))).toEqual([]);
  expect(report.failures.filter((f) => f.sentAtMs < phases.SIGKILL! - 1_000 || f.sentAtMs > phases.SIGKILL! + 20 || f.what !== '502')).toEqual([]);
  expect(steadyPerSecond).toBeGreaterThan(100);
  // App traffic keeps flowing while the control plane is down, and no app request waits for it.
  expect(Math.min(down.sigterm.ok, down.sigkill.ok)).toBeGreaterThan(50);
  expect(longestAppMs).toBeLessThan(Math.min(restartMs.sigterm, restartMs.sigkill) / 4);
  // Records of requests the ingress served while no control plane listened reached the next one
  // (only records the killed control plane received and had not written yet, at most 5 s, are lost).
  expect(metrics.requests).toBeGreaterThanOrEqual(appOkAfterKill);
  // The deploy after the restarts is what the app host serves now.
  expect(served).toMatchObject({ release: next, version: 2 });
  expect(status).toMatchObject({
    ok: true,
    status: { pid: first.ingressPid, holds: { unavailable: 0 }, routing: { table: true, attached: true, recordsDropped: 0 } },
  });

  // SIGINT (Ctrl-C) stops everything: control plane, ingress and app.
  const deployed = await appRecord(dataDir, app.projectId);
  await third.stop();
  expect({ ingress: alive(third.ingressPid!), app: alive(deployed.pid), first: alive(before.pid) }).toEqual({ ingress: false, app: false, first: false });
  // The saved routes pointed at the stopped app: gone with it (a crash of the ingress keeps them).
  expect(existsSync(edgePaths(dataDir).routesFile)).toBe(false);
}, 240_000);
