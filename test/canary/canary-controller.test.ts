// The controller around evaluateStage with an injected clock and timer and a real SQLite store:
// stage progression, routing per stage, exclusion of earlier-stage completions, and each way it
// fails safely (health loss, exit, lost authority), always removing candidate routing first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCanary, type CanaryControllerDeps, type CanaryOutcome, type CanaryRunInput } from '../../src/canary/canary-controller.js';
import type { CanaryStageEvent } from '../../src/canary/canary-observer.js';
import { CanaryStore, canaryMigrations } from '../../src/canary/canary-store.js';
import type { CompletedRequest } from '../../src/canary/sample-window.js';
import type { CanaryPolicy } from '../../src/canary/stage-policy.js';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { applyMigrations } from '../../src/core/db-migrations.js';
import { sequentialIds } from '../../src/core/ids.js';
import { createLogger } from '../../src/core/logger.js';

const policy: CanaryPolicy = {
  stages: [
    { trafficPercent: 10, durationMs: 1_000, minimumSamples: 3 },
    { trafficPercent: 40, durationMs: 1_000, minimumSamples: 3 },
  ],
  maximumErrorRate: 0.2,
  maximumP95Ms: 100,
};

let dir: string;
let db: ControlDb;
let store: CanaryStore;
let now: number;
let tick: (() => void) | null;
let observers: ((r: CompletedRequest & { projectId: string }) => void)[];
let routing: { calls: string[]; generation: number };
let events: CanaryStageEvent[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-canary-ctl-'));
  db = openControlDb(join(dir, 'control.db'));
  applyMigrations(db, canaryMigrations, () => 0);
  now = 1_000_000;
  store = new CanaryStore({
    db,
    clock: { now: () => now },
    ids: sequentialIds(),
    config: testPlatformConfig({ dataDir: dir }),
    logger: createLogger({ level: 'silent' }),
  });
  tick = null;
  observers = [];
  routing = { calls: [], generation: 10 };
  events = [];
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function deps(): CanaryControllerDeps {
  return {
    store,
    clock: { now: () => now },
    logger: createLogger({ level: 'silent' }),
    routing: {
      split: (projectId, candidate, percent) => {
        routing.calls.push(`split ${projectId} ${candidate.releaseId} ${percent}`);
        return ++routing.generation;
      },
      clear: async (projectId) => void routing.calls.push(`clear ${projectId}`),
    },
    subscribe: (fn) => {
      observers.push(fn);
      return () => observers.splice(observers.indexOf(fn), 1);
    },
    every: (_ms, fn) => {
      tick = fn;
      return () => (tick = null);
    },
    observer: { onCanaryStage: (e) => events.push(e) },
    checkEveryMs: 500,
  };
}

interface Harness {
  outcome: Promise<CanaryOutcome>;
  exit(): void;
  health: { ok: boolean };
  authority: { ok: boolean };
  runId: string;
}

function start(runPolicy: CanaryPolicy = policy): Harness {
  const runId = store.createRun({ projectId: 'prj_1', releaseId: 'rel_c', baselineReleaseId: 'rel_b', policy: runPolicy });
  const exits: (() => void)[] = [];
  const health = { ok: true };
  const authority = { ok: true };
  const input: CanaryRunInput = {
    runId,
    projectId: 'prj_1',
    releaseId: 'rel_c',
    policy: runPolicy,
    candidate: { host: '127.0.0.1', port: 1, releaseId: 'rel_c', onExit: (l) => (exits.push(l), () => undefined) },
    health: async () => health.ok,
    authority: async () => authority.ok,
  };
  const outcome = runCanary(deps(), input);
  return { outcome, exit: () => exits.forEach((l) => l()), health, authority, runId };
}

function complete(over: Partial<CompletedRequest> = {}): void {
  const record = {
    projectId: 'prj_1',
    releaseId: 'rel_c',
    generation: routing.generation,
    status: 200,
    latencyMs: 5,
    aborted: false,
    streamError: false,
    ...over,
  };
  for (const fn of [...observers]) fn(record);
}

/** Advance the clock and run one tick, then let checks settle. */
async function advance(ms: number): Promise<void> {
  now += ms;
  tick?.();
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('runCanary', () => {
  it('runs every stage, routing each percentage, then asks for promotion', async () => {
    const h = start();
    expect(routing.calls).toEqual(['split prj_1 rel_c 10']);
    for (let i = 0; i < 3; i++) complete();
    await advance(1_000);
    expect(routing.calls).toEqual(['split prj_1 rel_c 10', 'split prj_1 rel_c 40']);
    // A late completion of a request dispatched in stage 1 does not count for stage 2.
    for (let i = 0; i < 5; i++) complete({ generation: routing.generation - 1 });
    await advance(1_000);
    expect(store.report('prj_1')[0]!.stages[1]).toMatchObject({ state: 'failed', reason: 'insufficient-samples', samples: 0 });
    expect(await h.outcome).toEqual({ promoted: false, code: 'SVC_CANARY_CRITERIA_FAILED', reason: 'insufficient-samples' });
    expect(routing.calls.at(-1)).toBe('clear prj_1');
  });

  it('promotes when both stages meet their criteria; the run stays running until the activation settles it', async () => {
    const h = start();
    for (let i = 0; i < 3; i++) complete();
    await advance(1_000);
    for (let i = 0; i < 4; i++) complete({ latencyMs: 50 });
    complete({ projectId: 'prj_other' } as never); // another project's request is ignored
    await advance(999);
    expect(tick).not.toBeNull();
    await advance(1);
    expect(await h.outcome).toEqual({ promoted: true });
    const run = store.report('prj_1')[0]!;
    expect(run.state).toBe('running');
    expect(run.stages.map((s) => [s.state, s.samples])).toEqual([
      ['passed', 3],
      ['passed', 4],
    ]);
    expect(routing.calls.at(-1)).toBe('clear prj_1');
    expect(events.map((e) => `${e.kind}:${e.stageIndex}`)).toEqual(['stage-started:0', 'stage-passed:0', 'stage-started:1', 'stage-passed:1']);
    expect(tick).toBeNull();
  });

  it('fails on 5xx and stream errors above the bound before the stage ends', async () => {
    const h = start();
    complete({ status: 500 });
    complete({ status: 200, streamError: true });
    complete();
    await advance(10);
    expect(await h.outcome).toMatchObject({ promoted: false, reason: 'error-rate-exceeded' });
    const run = store.report('prj_1')[0]!;
    expect(run).toMatchObject({ state: 'failed', failure: { code: 'SVC_CANARY_CRITERIA_FAILED' } });
    expect(run.stages[0]).toMatchObject({ state: 'failed', reason: 'error-rate-exceeded', samples: 3 });
    expect(events.at(-1)).toMatchObject({ kind: 'failed', state: 'failed', reason: 'error-rate-exceeded' });
  });

  it('ignores cancelled requests', async () => {
    const h = start();
    for (let i = 0; i < 10; i++) complete({ aborted: true, status: 0 });
    await advance(1_000);
    expect(await h.outcome).toMatchObject({ promoted: false, reason: 'insufficient-samples' });
  });

  it('fails when the candidate exits', async () => {
    const h = start();
    h.exit();
    expect(await h.outcome).toEqual({ promoted: false, code: 'SVC_CANARY_CANDIDATE_LOST', reason: 'candidate-exited' });
    expect(routing.calls).toEqual(['split prj_1 rel_c 10', 'clear prj_1']);
  });

  it('fails after three failed health checks in a row, not after one', async () => {
    const h = start({ ...policy, stages: [{ trafficPercent: 10, durationMs: 60_000, minimumSamples: 3 }] });
    h.health.ok = false;
    await advance(500);
    h.health.ok = true;
    await advance(500);
    h.health.ok = false;
    await advance(100);
    await advance(400);
    await advance(500);
    expect(tick).not.toBeNull();
    await advance(500);
    expect(await h.outcome).toEqual({ promoted: false, code: 'SVC_CANARY_CANDIDATE_LOST', reason: 'health-lost' });
  });

  it('fails when the project lock or deployment authority is lost', async () => {
    const h = start();
    h.authority.ok = false;
    await advance(500);
    expect(await h.outcome).toEqual({ promoted: false, code: 'SVC_CANARY_AUTHORITY_LOST', reason: 'authority-lost' });
    expect(routing.calls.at(-1)).toBe('clear prj_1');
  });

  it('a control-plane start marks running runs interrupted', () => {
    const h = start();
    expect(store.markInterrupted('restarted')).toBe(1);
    const run = store.report('prj_1')[0]!;
    expect(run).toMatchObject({ id: h.runId, state: 'interrupted', failure: { code: 'SVC_CANARY_INTERRUPTED' } });
    expect(run.stages[0]!.state).toBe('interrupted');
    expect(store.markInterrupted('again')).toBe(0);
  });
});
