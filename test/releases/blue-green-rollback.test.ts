// Code-only rollbacks to a release whose migrations the database already holds are blue-green: the
// target starts beside the active release, which serves until the target is healthy, so with the hold
// switched off (SVC_HOLD_REQUESTS_MS=0) not one request fails; a failing target never interrupts the
// active release. Restore-data rollbacks still stop first, and the hold covers them (also when the
// target fails and the prior release is restarted on its own data).
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCutover, unappliedMigrations } from '../../runner/jobs/choose-cutover.js';
import { projectLayout } from '../../src/releases/project-layout.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { steadyTraffic, type TrafficReport } from './steady-traffic.js';

describe('the cutover of a rollback', () => {
  it('restoring data always stops first', () => {
    expect(chooseCutover({ pendingMigrations: 0, priorRunning: true, journaled: false, restoresData: true })).toBe('stop-first');
    expect(chooseCutover({ pendingMigrations: 0, priorRunning: true, journaled: false, restoresData: false })).toBe('blue-green');
  });
  it.each([
    [[], [], 0],
    [
      [{ version: 1, checksum: 'a' }],
      [
        { version: 1, checksum: 'a' },
        { version: 2, checksum: 'b' },
      ],
      0,
    ], // an older release: fine
    [
      [
        { version: 1, checksum: 'a' },
        { version: 2, checksum: 'b' },
      ],
      [{ version: 1, checksum: 'a' }],
      1,
    ], // its schema is not there
    [[{ version: 1, checksum: 'x' }], [{ version: 1, checksum: 'a' }], 1], // other bytes under the same number
  ])('target %o against applied %o → %i unapplied', (files, applied, expected) => {
    expect(unappliedMigrations(files, applied)).toBe(expected);
  });
});

/** The healthy fixture whose /healthz fails while `<data>/fail-health` exists (a target that cannot start). */
function failsWhenFlagged(flavour: string): (dir: string, config: Parameters<NonNullable<Parameters<typeof packFixture>[2]>>[1]) => Promise<typeof config> {
  return async (dir, config) => {
    const file = join(dir, 'dist', 'server.mjs');
    const source = await readFile(file, 'utf8');
    const health = "if (pathname === '/healthz') return send(res, 200, { ok: true, version: VERSION });";
    expect(source).toContain(health);
    const flagged = `if (pathname === '/healthz') { const { existsSync } = await import('node:fs'); return existsSync(process.env.SVC_DATA_DIR + '/fail-health') ? send(res, 500, { ok: false }) : send(res, 200, { ok: true, version: VERSION }); }`;
    await writeFile(file, source.replace(health, flagged));
    return { ...config, env: { ...config.env, FLAVOUR: flavour }, health: { ...config.health, timeoutMs: 2_000 } };
  };
}

interface Env {
  plane: Plane;
  origin: string;
  traffic(): { stop(): Promise<TrafficReport> };
  rollback(releaseId: string, restoreData?: boolean): Promise<{ statusCode: number; body: string; json(): unknown }>;
  flagHealth(on: boolean): Promise<void>;
}

async function environment(env: Record<string, string>): Promise<Env> {
  const plane = await startPlane({ env });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
  const flag = join(projectLayout(plane.dataDir, plane.project.id).dataDir, 'fail-health');
  return {
    plane,
    origin,
    traffic: () => steadyTraffic(origin, `${plane.project.slug}.localhost`),
    rollback: (releaseId, restoreData = false) =>
      plane.api(
        'POST',
        `/api/projects/${plane.project.id}/rollback`,
        restoreData ? { releaseId, restoreData, confirm: `restore ${plane.project.slug}` } : { releaseId },
      ),
    flagHealth: async (on) => (on ? writeFile(flag, 'x', { mode: 0o644 }) : rm(flag, { force: true })),
  };
}

const active = async (plane: Plane, id: string): Promise<void> => {
  const res = await plane.api('GET', `/api/projects/${plane.project.id}/releases`);
  expect((res.json() as { activeReleaseId: string }).activeReleaseId).toBe(id);
};

describe('rollbacks under steady traffic', () => {
  let work: string;
  const art: Record<string, Artifact> = {};
  const envs: Env[] = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-bg-rollback-'));
    art.v1 = await packFixture('healthy', work);
    art.flagged = await packFixture('healthy', work, failsWhenFlagged('b'));
    art.v2 = await packFixture('healthy-v2', work);
  }, 120_000);
  afterAll(async () => {
    for (const env of envs) {
      await env.plane.close();
      await removeDataDir(env.plane.dataDir);
    }
    if (work) await removeDataDir(work);
  });

  const deploy = async (plane: Plane, artifact: Artifact): Promise<string> => {
    const res = await plane.upload(artifact);
    expect(res.json().release.status, res.body).toBe('active');
    return res.json().release.id as string;
  };

  it('code-only rollbacks switch with no held and no failed request; a failing target leaves the active release serving', async () => {
    // No hold: a rollback that stopped the active release first would answer 503s here.
    const env = await environment({ SVC_HOLD_REQUESTS_MS: '0' });
    envs.push(env);
    const v1 = await deploy(env.plane, art.v1!);
    const flagged = await deploy(env.plane, art.flagged!);

    const during = env.traffic();
    const back = await env.rollback(v1);
    await new Promise((r) => setTimeout(r, 300));
    const seen = await during.stop();
    expect(back.statusCode, back.body).toBe(200);
    expect(seen.failures).toEqual([]);
    expect(seen.releases).toEqual(new Set([flagged, v1]));
    await active(env.plane, v1);

    await env.flagHealth(true);
    const duringFailure = env.traffic();
    const failed = await env.rollback(flagged);
    const seenFailure = await duringFailure.stop();
    expect((failed.json() as { error: { code: string } }).error.code, failed.body).toBe('SVC_HEALTH_CHECK_FAILED');
    expect(seenFailure.failures).toEqual([]);
    expect(seenFailure.releases).toEqual(new Set([v1]));
    await active(env.plane, v1);
    await env.flagHealth(false);

    // A release with a migration (stop-first deploy, no traffic measured), then back to the older code:
    // the database holds every migration of v1, so the rollback is blue-green too.
    const v2 = await deploy(env.plane, art.v2!);
    const duringOlder = env.traffic();
    const older = await env.rollback(v1);
    await new Promise((r) => setTimeout(r, 300));
    const seenOlder = await duringOlder.stop();
    expect(older.statusCode, older.body).toBe(200);
    expect(seenOlder.failures).toEqual([]);
    expect(seenOlder.releases).toEqual(new Set([v2, v1]));
    console.log(
      `blue-green rollbacks: ${seen.ok + seenFailure.ok + seenOlder.ok} answers, longest ${Math.round(Math.max(seen.longestMs, seenFailure.longestMs, seenOlder.longestMs))} ms`,
    );
  }, 180_000);

  it('restore-data rollbacks hold requests through the restore, also when the target fails and the prior release comes back', async () => {
    const env = await environment({});
    envs.push(env);
    const v1 = await deploy(env.plane, art.flagged!);
    const v2 = await deploy(env.plane, art.v2!);

    await env.flagHealth(true);
    const duringFailure = env.traffic();
    const failed = await env.rollback(v1, true);
    await new Promise((r) => setTimeout(r, 300));
    const seenFailure = await duringFailure.stop();
    expect((failed.json() as { error: { code: string } }).error.code, failed.body).toBe('SVC_HEALTH_CHECK_FAILED');
    expect(seenFailure.failures).toEqual([]);
    expect(seenFailure.releases).toEqual(new Set([v2]));
    await active(env.plane, v2);
    await env.flagHealth(false);

    const during = env.traffic();
    const restored = await env.rollback(v1, true);
    await new Promise((r) => setTimeout(r, 300));
    const seen = await during.stop();
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ restoredData: true });
    expect(seen.failures).toEqual([]);
    expect(seen.releases.has(v1)).toBe(true);
    console.log(`restore-data rollbacks: ${seen.ok + seenFailure.ok} answers, longest held ${Math.round(Math.max(seen.longestMs, seenFailure.longestMs))} ms`);
  }, 180_000);
});
