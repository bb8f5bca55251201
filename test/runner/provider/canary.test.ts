// Canary generations on a runner node, with real app processes: the candidate starts beside the
// baseline without switching the pointer, a request for its release promotes it without a restart
// (the baseline drains like any replaced app), any other request aborts it without interrupting the
// baseline; refusals and a failed start leave the baseline untouched; a restarted provider discards
// a staged canary. The promotion path runs through the real bridge and the fence store.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogStore } from '../../../runner/log-store.js';
import { ProcessRunner } from '../../../runner/process-runner.js';
import { createDeploymentProviderHandler } from '../../../runner/provider/create-deployment-provider-handler.js';
import { createHttpDeploymentProvider } from '../../../runner/provider/create-http-deployment-provider.js';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { fencedProvider } from '../../../runner/provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider } from '../../../runner/provider/local-provider.js';
import type { ProviderArtifact, ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { appPids } from '../supervision/supervision-helpers.js';
import { packedFixtureWithMigrations } from './fixture-variants.js';
import { listen, packedFixture, TOKEN } from './provider-helpers.js';

let dir: string;
const artifacts: Record<string, ProviderArtifact> = {};
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-node-canary-'));
  for (const name of ['healthy', 'healthy-v2']) artifacts[name] = await packedFixture(name);
  // Code-only against a healthy-v2 baseline: the same migration history, other code (version 1).
  artifacts['v1-code'] = await packedFixtureWithMigrations('healthy', 'healthy-v2');
  artifacts['crash-on-boot'] = await packedFixtureWithMigrations('crash-on-boot', 'healthy-v2');
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
}, 30_000);
afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));

function req(
  projectId: string,
  generation: number,
  fixture: string | null,
  releaseId: string | null = fixture ? `rel_${generation}` : null,
  canary = false,
): ReconcileRequest {
  return {
    operation: { projectId, id: `op_${generation}`, fence: generation },
    desired: { generation, state: fixture ? 'running' : 'stopped', releaseId },
    artifact: fixture ? artifacts[fixture]! : null,
    signal: new AbortController().signal,
    ...(canary ? { canary: true as const } : {}),
  };
}

function open(name: string): LocalProvider {
  const root = join(dir, name);
  const logs = new LogStore({ dir: join(root, 'logs') });
  const local = createLocalProvider({
    runner: new ProcessRunner({ runsDir: join(root, 'runs'), logs, stopGraceMs: 2000 }),
    rootDir: join(root, 'projects'),
    drainMs: 2000,
    retireGraceMs: 60_000,
  });
  closers.push(() => local.close());
  return local;
}

const releaseAt = async (at: { host: string | null; port: number | null }): Promise<string> =>
  ((await (await fetch(`http://${at.host}:${at.port}/`)).json()) as { release: string }).release;
const refused = (at: { host: string | null; port: number | null }): Promise<unknown> => expect(fetch(`http://${at.host}:${at.port}/healthz`)).rejects.toThrow();

/** Requests the address every 20 ms until stopped; counts the failures. */
function poll(at: { host: string | null; port: number | null }): { stop: () => Promise<{ ok: number; failed: number }> } {
  let running = true;
  const counts = { ok: 0, failed: 0 };
  const loop = (async () => {
    while (running) {
      await fetch(`http://${at.host}:${at.port}/healthz`).then(
        async (r) => {
          await r.body?.cancel();
          if (r.ok) counts.ok++;
          else counts.failed++;
        },
        () => counts.failed++,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return counts;
    },
  };
}

describe('canary generations on a runner node', () => {
  it('over the bridge: stages the candidate beside the baseline, reports both, promotes without a restart; the baseline drains', async () => {
    const local = open('promote');
    const fences = new FenceStore(join(dir, 'promote', 'fences.db'));
    closers.push(() => fences.close());
    const server = await listen(createDeploymentProviderHandler({ provider: fencedProvider(local, fences), token: TOKEN, maxArtifactBytes: 16 * 1024 * 1024 }));
    closers.push(server.close);
    const client = createHttpDeploymentProvider({ baseUrl: server.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    const project = join(dir, 'promote', 'projects', 'prj_promote');

    await client.reconcile(req('prj_promote', 1, 'healthy-v2'));
    const baseline = local.active('prj_promote')!;
    const [baselinePid] = appPids('prj_promote');

    await client.reconcile(req('prj_promote', 2, 'v1-code', 'rel_2', true));
    // The pointer never moved; the candidate listens on a port of its own.
    expect(local.active('prj_promote')).toEqual(baseline);
    const [state] = await client.running!();
    expect(state).toMatchObject({
      projectId: 'prj_promote',
      generation: 1,
      releaseId: 'rel_1',
      upstream: { host: baseline.host, port: baseline.port },
      canary: { generation: 2, releaseId: 'rel_2' },
    });
    const candidate = state!.canary!.upstream!;
    expect(candidate.port).not.toBe(baseline.port);
    expect(await releaseAt(baseline)).toBe('rel_1');
    expect(await releaseAt(candidate)).toBe('rel_2');
    expect(existsSync(join(project, 'canary.json'))).toBe(true);
    expect(existsSync(join(project, 'snapshots', 'rel_2.db'))).toBe(true); // its rollback point
    const pids = appPids('prj_promote');
    expect(pids).toHaveLength(2);
    const candidatePid = pids.find((pid) => pid !== baselinePid)!;

    // A later delivery of a canary for the same release keeps the running candidate (nothing restarts).
    await local.reconcile(req('prj_promote', 3, 'v1-code', 'rel_2', true));
    expect(appPids('prj_promote').sort()).toEqual([...pids].sort());
    expect((await local.running())[0]!.canary).toEqual({ generation: 3, releaseId: 'rel_2', upstream: candidate });

    // Promote: an ordinary request for the candidate's release. Served continuously by the candidate.
    const watch = poll(candidate);
    await client.reconcile(req('prj_promote', 4, 'v1-code', 'rel_2'));
    expect((await watch.stop()).failed).toBe(0);
    expect(local.active('prj_promote')).toEqual({ generation: 4, releaseId: 'rel_2', host: candidate.host, port: candidate.port, previousReleaseId: 'rel_1' });
    expect(appPids('prj_promote')).toContain(candidatePid);
    expect(existsSync(join(project, 'canary.json'))).toBe(false);
    const [promoted] = await client.running!();
    expect(promoted).toEqual({ projectId: 'prj_promote', generation: 4, state: 'running', releaseId: 'rel_2', upstream: candidate });
    // The baseline drains like any replaced app: serving until the route to generation 4 is acknowledged.
    expect(await releaseAt(baseline)).toBe('rel_1');
    await local.routed!('prj_promote', 4);
    await refused(baseline);
    expect(appPids('prj_promote')).toEqual([candidatePid]);
  }, 90_000);

  it('aborts: a request for the baseline release or a stop ends the candidate; the baseline never stops serving', async () => {
    const local = open('abort');
    const project = join(dir, 'abort', 'projects', 'prj_abort');
    await local.reconcile(req('prj_abort', 1, 'healthy-v2'));
    const baseline = local.active('prj_abort')!;
    const [baselinePid] = appPids('prj_abort');
    const watch = poll(baseline);

    await local.reconcile(req('prj_abort', 2, 'v1-code', 'rel_2', true));
    const candidate = (await local.running())[0]!.canary!.upstream!;
    expect(await releaseAt(candidate)).toBe('rel_2');
    // Abort: the baseline's release again. The candidate stops and its release is collected.
    await local.reconcile(req('prj_abort', 3, 'healthy-v2', 'rel_1'));
    await refused(candidate);
    expect(local.active('prj_abort')).toEqual({ ...baseline, generation: 3 });
    expect(appPids('prj_abort')).toEqual([baselinePid]);
    expect(existsSync(join(project, 'canary.json'))).toBe(false);
    expect(existsSync(join(project, 'releases', 'rel_2'))).toBe(false);
    expect((await local.running())[0]).not.toHaveProperty('canary');

    // A second canary is superseded by another release: the candidate stops, that release deploys blue-green.
    await local.reconcile(req('prj_abort', 4, 'v1-code', 'rel_4', true));
    const second = (await local.running())[0]!.canary!.upstream!;
    expect((await watch.stop()).failed).toBe(0);
    await local.reconcile(req('prj_abort', 5, 'v1-code', 'rel_5'));
    await refused(second);
    expect(local.active('prj_abort')).toMatchObject({ generation: 5, releaseId: 'rel_5', previousReleaseId: 'rel_1' });
    expect(await releaseAt(local.active('prj_abort')!)).toBe('rel_5');

    // A stop ends a staged candidate too.
    await local.routed!('prj_abort', 5);
    await local.reconcile(req('prj_abort', 6, 'v1-code', 'rel_6', true));
    const third = (await local.running())[0]!.canary!.upstream!;
    await local.reconcile(req('prj_abort', 7, null));
    await refused(third);
    expect(appPids('prj_abort')).toEqual([]);
    expect(existsSync(join(project, 'canary.json'))).toBe(false);
  }, 90_000);

  it('refuses without a baseline, with pending migrations or for the running release; a failed candidate leaves the baseline untouched', async () => {
    const local = open('refuse');
    const project = join(dir, 'refuse', 'projects', 'prj_refuse');
    await expect(local.reconcile(req('prj_refuse', 1, 'healthy', 'rel_1', true))).rejects.toMatchObject({ code: 'SVC_CANARY_NO_BASELINE' });
    expect(appPids('prj_refuse')).toEqual([]);

    await local.reconcile(req('prj_refuse', 2, 'healthy'));
    const baseline = local.active('prj_refuse')!;
    const [baselinePid] = appPids('prj_refuse');
    await expect(local.reconcile(req('prj_refuse', 3, 'healthy-v2', 'rel_3', true))).rejects.toMatchObject({ code: 'SVC_CANARY_PENDING_MIGRATIONS' });
    await expect(local.reconcile(req('prj_refuse', 4, 'healthy', 'rel_2', true))).rejects.toMatchObject({ code: 'SVC_CANARY_NO_BASELINE' });
    expect(appPids('prj_refuse')).toEqual([baselinePid]);
    expect(local.active('prj_refuse')).toEqual(baseline);
    expect(existsSync(join(project, 'canary.json'))).toBe(false);

    // Move the baseline onto the two-migration history, then a candidate that never becomes healthy.
    await local.reconcile(req('prj_refuse', 5, 'healthy-v2'));
    const v2 = local.active('prj_refuse')!;
    const [v2Pid] = appPids('prj_refuse');
    // The failure says how the candidate ended, so an operator knows where to look.
    await expect(local.reconcile(req('prj_refuse', 6, 'crash-on-boot', 'rel_6', true))).rejects.toMatchObject({
      code: 'SVC_HEALTH_CHECK_FAILED',
      message: expect.stringContaining('rel_6 failed (exited with status 1)'),
    });
    expect(local.active('prj_refuse')).toEqual(v2);
    expect(await releaseAt(v2)).toBe('rel_5');
    expect(appPids('prj_refuse')).toEqual([v2Pid]);
    expect(existsSync(join(project, 'canary.json'))).toBe(false);
    expect((await local.running())[0]).not.toHaveProperty('canary');
  }, 90_000);

  it('a restarted provider discards a staged canary (its app ended with the provider) and restarts the baseline', async () => {
    const first = open('restart');
    const project = join(dir, 'restart', 'projects', 'prj_restart');
    await first.reconcile(req('prj_restart', 1, 'healthy-v2'));
    await first.reconcile(req('prj_restart', 2, 'v1-code', 'rel_2', true));
    await first.close();
    expect(appPids('prj_restart')).toEqual([]);
    expect(existsSync(join(project, 'canary.json'))).toBe(true);

    const second = open('restart');
    // Before resume nothing runs; the record alone is reported without an address.
    expect((await second.running())[0]).toMatchObject({ releaseId: 'rel_1', upstream: null, canary: { generation: 2, releaseId: 'rel_2', upstream: null } });
    expect(await second.resume()).toEqual([{ projectId: 'prj_restart', outcome: 'started' }]);
    const [state] = await second.running();
    expect(state).toMatchObject({ generation: 1, releaseId: 'rel_1' });
    expect(state).not.toHaveProperty('canary');
    expect(await releaseAt(state!.upstream!)).toBe('rel_1');
    expect(existsSync(join(project, 'canary.json'))).toBe(false);
    expect(existsSync(join(project, 'releases', 'rel_2'))).toBe(false);
    expect(appPids('prj_restart')).toHaveLength(1);

    // A promotion of the lost canary is an ordinary (blue-green) deploy of that release.
    await second.reconcile(req('prj_restart', 3, 'v1-code', 'rel_2'));
    expect(second.active('prj_restart')).toMatchObject({ generation: 3, releaseId: 'rel_2', previousReleaseId: 'rel_1' });
    expect(await releaseAt(second.active('prj_restart')!)).toBe('rel_2');
  }, 90_000);
});
