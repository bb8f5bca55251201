// Canary rollouts end to end: a listening control plane, real fixture app processes as baseline and
// candidates, real HTTP load through the ingress. Each fault fails safely: candidate routing removed,
// candidate stopped, the baseline keeps serving, and the durable report says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { eventually, packCandidate, quickPolicy, runLoad, startCanaryPlane, type Artifact, type CanaryPlane } from './support.js';
import { packFixture } from '../releases/release-support.js';

let p: CanaryPlane;
let host: string;
/** The deployment authority canary stages check besides the project lock (one test revokes it). */
let authorized = true;
let baselineId: string;
const artifacts: Record<string, Artifact> = {};

beforeAll(async () => {
  p = await startCanaryPlane({ canary: { authority: () => authorized } });
  host = `${p.project.slug}.localhost:${p.port}`;
  const [baseline, fail, slow, ok, crash, cancel] = await Promise.all([
    // The first deploy carries a canary policy but has no baseline: normal health-gated activation.
    packCandidate(p.dir, 1, 'ok', quickPolicy()),
    packCandidate(p.dir, 2, 'fail', quickPolicy()),
    packCandidate(p.dir, 3, 'slow', quickPolicy({ stages: [{ trafficPercent: 20, durationMs: 2_000, minimumSamples: 5 }] })),
    packCandidate(p.dir, 4, 'ok', quickPolicy()),
    packCandidate(p.dir, 5, 'ok', quickPolicy({ stages: [{ trafficPercent: 50, durationMs: 20_000, minimumSamples: 5 }] })),
    packCandidate(p.dir, 6, { slowMs: 400 }, quickPolicy({ maximumP95Ms: 5_000 })),
  ]);
  Object.assign(artifacts, { baseline, fail, slow, ok, crash, cancel });
  const first = await p.upload(baseline);
  expect((await p.release(first.releaseId)).status).toBe('active');
  baselineId = first.releaseId;
}, 120_000);

afterAll(async () => {
  await p?.close();
});

/** The baseline answers through the ingress. */
async function expectBaselineServing(version: number): Promise<void> {
  const res = await request(`${p.url}/`, { headers: { host } });
  expect(res.statusCode).toBe(200);
  expect(((await res.body.json()) as { version: number }).version).toBe(version);
}

/** Upload with load running, wait for the release to end, stop the load. */
async function canaryUnderLoad(artifact: Artifact, options: { clients?: number; canary?: boolean; path?: string } = {}) {
  const load = runLoad(p.url, host, { clients: options.clients ?? 4, maxMs: 30_000, ...(options.path ? { path: options.path } : {}) });
  const up = await p.upload(artifact, { canary: options.canary ?? false });
  const result = await load.stop();
  return { release: await p.release(up.releaseId), releaseId: up.releaseId, load: result };
}

describe('canary rollouts', () => {
  it('a first deploy with a canary policy activates directly (no baseline)', async () => {
    expect((await p.report()).runs).toEqual([]);
    await expectBaselineServing(1);
  });

  it('rejects a canary with pending migrations before anything starts (svc deploy --canary, default policy)', async () => {
    const v2 = await packFixture('healthy-v2', p.dir);
    const { release } = await canaryUnderLoad(v2, { canary: true });
    expect(release.status).toBe('failed');
    expect(release.failure?.code).toBe('SVC_CANARY_PENDING_MIGRATIONS');
    expect(await p.activeReleaseId()).toBe(baselineId);
    const run = (await p.report()).runs[0]!;
    expect(run.state).toBe('rejected');
    expect(run.failure?.code).toBe('SVC_CANARY_PENDING_MIGRATIONS');
    expect(run.stages).toEqual([]);
    expect(run.policy.stages[0]!.durationMs).toBe(60_000); // the default policy
    await expectBaselineServing(1);
  }, 60_000);

  it('fails safely when the candidate returns 5xx above the threshold', async () => {
    const { release, releaseId, load } = await canaryUnderLoad(artifacts.fail!);
    expect(release.status).toBe('failed');
    expect(release.failure?.code).toBe('SVC_CANARY_CRITERIA_FAILED');
    const run = (await p.report()).runs[0]!;
    expect(run).toMatchObject({ releaseId, baselineReleaseId: baselineId, state: 'failed', failure: { code: 'SVC_CANARY_CRITERIA_FAILED' } });
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'error-rate-exceeded', trafficPercent: 20 });
    expect(run.stages[0]!.errorRate).toBeGreaterThan(0.05);
    // Only the candidate's own answers failed; every other request was served by the baseline.
    expect(load.failures.every((f) => f.status === 500 && f.version === 2)).toBe(true);
    expect(load.versions[1]).toBeGreaterThan(0);
    expect(p.plane.ingress.routes.get(p.project.id)!.canary).toBeNull();
    expect(await p.activeReleaseId()).toBe(baselineId);
    await expectBaselineServing(1);
  }, 60_000);

  it('fails safely when the candidate is slower than maximumP95Ms', async () => {
    const { release, load } = await canaryUnderLoad(artifacts.slow!);
    expect(release.failure?.code).toBe('SVC_CANARY_CRITERIA_FAILED');
    const run = (await p.report()).runs[0]!;
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'p95-exceeded' });
    expect(run.stages[0]!.p95Ms).toBeGreaterThan(250);
    expect(load.failures).toEqual([]);
    expect(await p.activeReleaseId()).toBe(baselineId);
    await expectBaselineServing(1);
  }, 60_000);

  it('fails when there is no traffic (missing samples at the stage end)', async () => {
    const up = await p.upload(artifacts.ok!);
    const release = await p.release(up.releaseId);
    expect(release.failure?.code).toBe('SVC_CANARY_CRITERIA_FAILED');
    const run = (await p.report()).runs[0]!;
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'insufficient-samples', samples: 0 });
    expect(await p.activeReleaseId()).toBe(baselineId);
    await expectBaselineServing(1);
  }, 60_000);

  it('does not count cancelled client requests', async () => {
    // Every request is cancelled after 100 ms; the candidate needs 400 ms, the baseline answers at once.
    const agent = new Agent({ connections: 4 });
    let stop = false;
    let cancelled = 0;
    const loops = Array.from({ length: 4 }, async () => {
      for (let i = 0; !stop && i < 10_000; i++) {
        try {
          const res = await agent.request({ origin: p.url, path: '/', method: 'GET', headers: { host }, signal: AbortSignal.timeout(100) });
          await res.body.text();
        } catch {
          cancelled++;
        }
      }
    });
    const up = await p.upload(artifacts.cancel!);
    stop = true;
    await Promise.all(loops);
    await agent.close();
    expect(cancelled).toBeGreaterThan(5);
    const release = await p.release(up.releaseId);
    expect(release.failure?.code).toBe('SVC_CANARY_CRITERIA_FAILED');
    const run = (await p.report()).runs[0]!;
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'insufficient-samples', samples: 0 });
    await expectBaselineServing(1);
  }, 60_000);

  it('fails safely when the candidate crashes mid-stage', async () => {
    const load = runLoad(p.url, host, { clients: 2, maxMs: 30_000 });
    const up = await p.upload(artifacts.crash!, { wait: false });
    // Wait until the candidate takes traffic, then kill its process.
    await eventually(async () => ((await p.report()).runs[0]?.stages[0]?.samples ?? 0) > 0, 20_000);
    const row = p.plane.db.prepare('SELECT run_record FROM releases WHERE id = ?').get(up.releaseId) as { run_record: string };
    const pid = (JSON.parse(row.run_record) as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');
    const release = await eventually(async () => {
      const r = await p.release(up.releaseId);
      return r.status === 'failed' ? r : null;
    }, 20_000);
    const result = await load.stop();
    await eventually(async () => (await p.plane.releases.locks.holder(p.project.id)) === null);
    expect(release.failure?.code).toBe('SVC_CANARY_CANDIDATE_LOST');
    const run = (await p.report()).runs[0]!;
    expect(run).toMatchObject({ state: 'failed', failure: { code: 'SVC_CANARY_CANDIDATE_LOST' } });
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'candidate-exited' });
    // Only requests in flight at the candidate when it was killed may fail.
    expect(result.failures.every((f) => f.version !== 1)).toBe(true);
    expect(result.failures.length).toBeLessThanOrEqual(2);
    expect(await p.activeReleaseId()).toBe(baselineId);
    await expectBaselineServing(1);
  }, 60_000);

  it.each(['project lock', 'deployment authority'])(
    'fails safely when the %s is lost mid-stage',
    async (what) => {
      const load = runLoad(p.url, host, { clients: 2, maxMs: 30_000 });
      const up = await p.upload(artifacts.crash!, { wait: false });
      await eventually(async () => ((await p.report()).runs[0]?.stages[0]?.samples ?? 0) > 0, 20_000);
      if (what === 'project lock') await rm(p.plane.releases.locks.lockPath(p.project.id), { force: true });
      else authorized = false;
      const release = await eventually(async () => {
        const r = await p.release(up.releaseId);
        return r.status === 'failed' ? r : null;
      }, 20_000);
      const result = await load.stop();
      authorized = true;
      await eventually(async () => (await p.plane.releases.locks.holder(p.project.id)) === null);
      expect(release.failure?.code).toBe('SVC_CANARY_AUTHORITY_LOST');
      expect((await p.report()).runs[0]!.stages[0]).toMatchObject({ state: 'failed', reason: 'authority-lost' });
      expect(result.failures).toEqual([]);
      expect(p.plane.ingress.routes.get(p.project.id)!.canary).toBeNull();
      expect(await p.activeReleaseId()).toBe(baselineId);
      await expectBaselineServing(1);
    },
    60_000,
  );

  it('promotes a healthy candidate under continuous load with 0 failed requests', async () => {
    const { release, releaseId, load } = await canaryUnderLoad(artifacts.ok!, { clients: 6 });
    expect(release.status).toBe('active');
    expect(load.failures).toEqual([]);
    expect(load.versions[1]).toBeGreaterThan(0);
    expect(load.versions[4]).toBeGreaterThan(0);
    const run = (await p.report()).runs[0]!;
    expect(run).toMatchObject({ releaseId, state: 'promoted', failure: null });
    expect(run.stages.map((s) => [s.trafficPercent, s.state, s.reason])).toEqual([
      [20, 'passed', 'criteria-met'],
      [50, 'passed', 'criteria-met'],
    ]);
    for (const stage of run.stages) expect(stage.samples).toBeGreaterThanOrEqual(5);
    expect(await p.activeReleaseId()).toBe(releaseId);
    expect(p.plane.releases.current(p.project.id)?.releaseId).toBe(releaseId);
    // All traffic now goes to the promoted release.
    const after = runLoad(p.url, host, { clients: 2 });
    await new Promise((r) => setTimeout(r, 300));
    const tail = await after.stop();
    expect(tail.failures).toEqual([]);
    expect(Object.keys(tail.versions)).toEqual(['4']);
  }, 60_000);

  it('reports require an authorized project reader', async () => {
    const res = await p.plane.app.inject({ method: 'GET', url: `/api/projects/${p.project.id}/canary` });
    expect(res.statusCode).toBe(401);
  });
});
