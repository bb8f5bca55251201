// Platform point-in-time recovery end to end on a real control plane with real app processes: enable
// it, deploy fixtures/apps/runtime-demo (which calls attachPlatformRecovery), write through the app's
// HTTP API, watch committed/exported sequences, restore an earlier sequence into a new database, activate
// it and see the app serve it, then deploy a release with a migration and check the epoch rotation.
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivateRestoreResponse, RecoveryStatusResponse, RestoreRecoveryResponse } from '../../../src/recovery/contract.js';
import type { UploadResponse } from '../../../src/releases/contract.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from '../../releases/release-support.js';
import { createProject, createToken } from '../../platform/harness.js';
import { runMain } from '../../cli-remote/run-main.js';
import { call, ensureBuiltPackage, readDatabase, servedTasks, signUp, type DemoUser } from './support.js';

let work: string;
let plane: Plane;
let v1: Artifact;
let v2: Artifact;
let v3: Artifact;
let healthy: Artifact;
let user: DemoUser;
let v1Id: string;
let address: string;

beforeAll(async () => {
  ensureBuiltPackage();
  work = await mkdtemp(join(tmpdir(), 'svc-recovery-platform-'));
  v1 = await packFixture('runtime-demo', work);
  v2 = await packFixture('runtime-demo', work, async (appDir, config) => {
    await mkdir(join(appDir, 'migrations'));
    await writeFile(
      join(appDir, 'migrations', '0001_notes.sql'),
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);\nINSERT INTO notes (id, text) VALUES (1, 'migrated');\n",
    );
    return { ...config, include: ['dist', 'migrations'] };
  });
  // v3 keeps v2's migration history but never answers its health route: it fails after the rotation.
  v3 = await packFixture('runtime-demo', work, async (appDir, config) => {
    await mkdir(join(appDir, 'migrations'));
    await writeFile(
      join(appDir, 'migrations', '0001_notes.sql'),
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);\nINSERT INTO notes (id, text) VALUES (1, 'migrated');\n",
    );
    return { ...config, include: ['dist', 'migrations'], health: { path: '/no-such-health-route', timeoutMs: 8000 } };
  });
  healthy = await packFixture('healthy', work);
  plane = await startPlane();
  // Listening, so requests by the project's host pass the ingress (inject() never does).
  address = await plane.app.listen({ port: 0, host: '127.0.0.1' });
}, 400_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

const projectUrl = () => `/api/projects/${plane.project.id}/recovery`;
const restoresDir = () => join(plane.dataDir, 'projects', plane.project.id, 'recovery-restores');
async function status(): Promise<RecoveryStatusResponse> {
  const res = await plane.api('GET', projectUrl());
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as RecoveryStatusResponse;
}
/** Wait until every committed entry is exported; returns the status. */
async function exported(): Promise<RecoveryStatusResponse> {
  return eventually(async () => {
    const s = await status();
    return s.committedThrough !== null && s.committedThrough === s.exportedThrough ? s : null;
  }, 20_000);
}
async function restore(body: Record<string, unknown>): Promise<RestoreRecoveryResponse['restore']> {
  const res = await plane.api('POST', `${projectUrl()}/restore`, body);
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as RestoreRecoveryResponse).restore;
}
async function auditKinds(): Promise<string[]> {
  const res = await plane.api('GET', `/api/projects/${plane.project.id}/audit?limit=200`);
  return (res.json() as { events: { kind: string }[] }).events.map((e) => e.kind);
}
/** Task texts as the project's host serves them through the ingress (not the app's own port). */
async function tasksViaIngress(): Promise<string[]> {
  const response = await request(`${address}/__svc/query/tasks/list`, {
    method: 'POST',
    headers: {
      host: `${plane.project.slug}.localhost:${new URL(address).port}`,
      'content-type': 'application/json',
      cookie: user.cookie,
      'x-svc-csrf': user.csrf,
    },
    body: '{}',
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`ingress ${response.statusCode}: ${text}`);
  return ((JSON.parse(text) as { value: { text: string }[] }).value ?? []).map((t) => t.text).sort();
}
async function add(text: string): Promise<void> {
  const result = await call(plane.appUrl(), user, 'mutation', 'tasks/add', { text });
  expect(result.status, result.code).toBe(200);
}

describe('platform point-in-time recovery', () => {
  let afterFirst: number;

  it('enables recovery for a project (deploy permission; effective on the next start)', async () => {
    const before = await status();
    expect(before).toMatchObject({ enabled: false, epochs: [] });
    const reader = await createToken(plane.app, plane.owner, { name: 'reader', permissions: ['read'] });
    const asReader = (method: 'GET' | 'POST', url: string, payload?: object) =>
      plane.app.inject({ method, url, headers: { authorization: `Bearer ${reader.accessToken}` }, ...(payload ? { payload } : {}) });
    expect((await asReader('GET', projectUrl())).statusCode).toBe(200);
    expect((await asReader('POST', projectUrl(), { enabled: true })).json()).toMatchObject({ error: { code: 'SVC_FORBIDDEN' } });
    expect((await asReader('POST', `${projectUrl()}/restore`, { throughSequence: 0 })).json()).toMatchObject({ error: { code: 'SVC_FORBIDDEN' } });
    const res = await plane.api('POST', projectUrl(), { enabled: true });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ enabled: true, created: true, effective: 'next-release-or-restart' });
    const again = await plane.api('POST', projectUrl(), { enabled: true });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false });
    const off = await plane.api('POST', projectUrl(), { enabled: false });
    expect(off.json()).toMatchObject({ error: { code: 'SVC_RECOVERY_DISABLE_UNSUPPORTED' } });
    expect(await auditKinds()).toContain('recovery.enable');
  });

  it('deploys runtime-demo, which begins the first epoch; writes through the app are committed and exported', async () => {
    const res = await plane.upload(v1);
    expect(res.statusCode, res.body).toBe(201);
    expect((res.json() as UploadResponse).release.status).toBe('active');
    v1Id = (res.json() as UploadResponse).release.id;
    const begun = await status();
    expect(begun).toMatchObject({ enabled: true, attached: true, currentEpoch: 'epoch-0001' });
    expect(begun.epochs).toHaveLength(1);
    expect(begun.epochs[0]!.epochId).toMatch(/^epoch_/);
    // The key never sits beside the archive: the repository holds only epoch.json, head.json, base/, journal/.
    const epochDir = join(plane.dataDir, 'projects', plane.project.id, 'recovery', 'epoch-0001');
    expect(existsSync(join(epochDir, 'epoch.json')) && existsSync(join(epochDir, 'base'))).toBe(true);

    user = await signUp(plane.appUrl(), 'ada@example.com');
    await add('first');
    afterFirst = (await exported()).committedThrough!;
    expect(afterFirst).toBeGreaterThan(0);
    await add('second');
    await add('third');
    const later = await exported();
    expect(later.committedThrough).toBeGreaterThanOrEqual(afterFirst + 2);
    expect(later.newestCommitAt).not.toBeNull();
    expect(await servedTasks(plane.appUrl(), user)).toEqual(['first', 'second', 'third']);
  }, 120_000);

  it('restores an earlier sequence into a new stopped database without touching the live one', async () => {
    const restored = await restore({ throughSequence: afterFirst });
    expect(restored).toMatchObject({ epoch: 'epoch-0001', sequence: afterFirst, activatedAt: null });
    expect(restored.sizeBytes).toBeGreaterThan(0);
    const contents = readDatabase(join(restoresDir(), `${restored.id}.db`));
    expect(contents.tasks).toEqual(['first']);
    expect(contents.tables.filter((t) => t.startsWith('_svc_recovery_'))).toEqual([]);
    // The live app still has everything.
    expect(await servedTasks(plane.appUrl(), user)).toEqual(['first', 'second', 'third']);
    // By time: now restores the newest commit; a sequence that was never exported fails with its code.
    const byTime = await restore({ asOf: new Date().toISOString() });
    expect(readDatabase(join(restoresDir(), `${byTime.id}.db`)).tasks).toEqual(['first', 'second', 'third']);
    const missing = await plane.api('POST', `${projectUrl()}/restore`, { throughSequence: 1_000_000 });
    expect(missing.json()).toMatchObject({ error: { code: 'SVC_RECOVERY_SEQUENCE_UNAVAILABLE' } });
  }, 60_000);

  it('activates a restored database with the confirmation phrase; the app serves it and a new epoch begins', async () => {
    const restored = await restore({ throughSequence: afterFirst });
    const url = `${projectUrl()}/restores/${restored.id}/activate`;
    const wrong = await plane.api('POST', url, { confirm: 'restore something-else' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: { code: 'SVC_RECOVERY_CONFIRMATION_MISMATCH' } });
    const res = await plane.api('POST', url, { confirm: `restore ${plane.project.slug}` });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as ActivateRestoreResponse;
    expect(answer.restore.activatedAt).not.toBeNull();
    expect(existsSync(join(restoresDir(), answer.undoSnapshot))).toBe(true);
    // Activation answers once the restarted app is healthy and routed: the project's host serves it at once.
    expect(await tasksViaIngress()).toEqual(['first']);
    // The restarted app serves the restored data (the session was restored too).
    await eventually(async () => JSON.stringify(await servedTasks(plane.appUrl(), user)) === JSON.stringify(['first']), 30_000);
    const after = await eventually(async () => {
      const s = await status();
      return s.currentEpoch === 'epoch-0002' && s.attached ? s : null;
    });
    expect(after.epochs.map((e) => e.id)).toEqual(['epoch-0001', 'epoch-0002']);
    expect(await auditKinds()).toEqual(expect.arrayContaining(['recovery.restore_create', 'recovery.restore']));
    // New writes land in the new epoch.
    await add('fourth');
    const s = await exported();
    expect(s.currentEpoch).toBe('epoch-0002');
    expect(s.committedThrough).toBeGreaterThan(0);
    // Activating the same restore again is refused.
    const twice = await plane.api('POST', url, { confirm: `restore ${plane.project.slug}` });
    expect(twice.json()).toMatchObject({ error: { code: 'SVC_RECOVERY_RESTORE_NOT_FOUND' } });
  }, 120_000);

  it('a release with a migration rotates the epoch: the old one is retained and restores its final sequence', async () => {
    const before = await exported();
    const finalOfOld = before.committedThrough!;
    const res = await plane.upload(v2);
    expect(res.statusCode, res.body).toBe(201);
    const release = (res.json() as UploadResponse).release;
    expect(release.status, JSON.stringify(release.failure)).toBe('active');
    expect(await auditKinds()).toContain('recovery.rotate');

    const rotated = await status();
    expect(rotated.currentEpoch).toBe('epoch-0003');
    expect(rotated.epochs.map((e) => e.id)).toEqual(['epoch-0001', 'epoch-0002', 'epoch-0003']);
    expect(rotated.epochs[1]!.exportedThrough).toBe(finalOfOld);

    // The old epoch still restores its final sequence (pre-migration schema, all its data).
    const old = await restore({ epochId: 'epoch-0002', throughSequence: finalOfOld });
    const oldContents = readDatabase(join(restoresDir(), `${old.id}.db`));
    expect(oldContents.tasks).toEqual(['first', 'fourth']);
    expect(oldContents.tables).not.toContain('notes');

    // The app runs on the migrated database; new writes land in the new epoch.
    expect(await servedTasks(plane.appUrl(), user)).toEqual(['first', 'fourth']);
    await add('fifth');
    const now = await exported();
    expect(now.currentEpoch).toBe('epoch-0003');
    const latest = await restore({ throughSequence: now.exportedThrough! });
    expect(latest.epoch).toBe('epoch-0003');
    const newContents = readDatabase(join(restoresDir(), `${latest.id}.db`));
    expect(newContents.tasks).toEqual(['fifth', 'first', 'fourth']);
    expect(newContents.notes).toEqual(['migrated']);
  }, 180_000);

  it('a release that fails after the rotation restores the snapshot; the prior release continues its epoch', async () => {
    const before = await exported();
    const res = await plane.upload(v3, { wait: false });
    expect(res.statusCode, res.body).toBe(202);
    const releaseUrl = `/api/projects/${plane.project.id}/releases/${(res.json() as UploadResponse).release.id}`;
    // The candidate begins epoch-0004 after the rotation (its health route never answers). The bound is
    // the app's boot on a loaded machine (two suites at once in CI), not a property of the release.
    await eventually(async () => (await status()).epochs.find((e) => e.id === 'epoch-0004')?.epochId, 30_000);
    const release = await eventually(async () => {
      const r = (await plane.api('GET', releaseUrl)).json() as { release: UploadResponse['release'] };
      return r.release.status === 'failed' ? r.release : null;
    }, 30_000);
    expect(release.failure).toMatchObject({ step: 'health', code: 'SVC_HEALTH_CHECK_FAILED' });
    expect((await auditKinds()).filter((k) => k === 'recovery.rotate')).toHaveLength(2);
    // The prior release runs again on the snapshot, which still belongs to epoch-0003 at the same sequence.
    const back = await eventually(async () => {
      const s = await status();
      return s.currentEpoch === 'epoch-0003' ? s : null;
    });
    expect(back.committedThrough).toBe(before.committedThrough);
    // The failed candidate had begun epoch-0004: kept, marked abandoned, skipped by default restores.
    expect(back.epochs.map((e) => [e.id, e.current, e.abandoned])).toEqual([
      ['epoch-0001', false, false],
      ['epoch-0002', false, false],
      ['epoch-0003', true, false],
      ['epoch-0004', false, true],
    ]);
    await eventually(async () => (await servedTasks(plane.appUrl(), user)).length === 3, 30_000);
    await add('sixth');
    const now = await exported();
    expect(now.currentEpoch).toBe('epoch-0003');
    expect(now.committedThrough).toBeGreaterThan(before.committedThrough!);
    expect(await servedTasks(plane.appUrl(), user)).toEqual(['fifth', 'first', 'fourth', 'sixth']);
  }, 120_000);

  it('fails a release whose app never attaches recovery (SVC_RECOVERY_APP_NOT_ATTACHED)', async () => {
    const other = await createProject(plane.app, plane.owner, { name: 'Plain', slug: `plain-${Date.now().toString(36)}` });
    const enable = await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${other.id}/recovery`,
      headers: plane.owner.headers(),
      payload: { enabled: true },
    });
    expect(enable.statusCode).toBe(201);
    const res = await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${other.id}/releases`,
      headers: plane.owner.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': healthy.digest,
        'idempotency-key': `key-plain-${Date.now()}`,
      }),
      payload: healthy.bytes,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((res.json() as UploadResponse).release.failure).toMatchObject({ step: 'health', code: 'SVC_RECOVERY_APP_NOT_ATTACHED' });
  }, 60_000);

  it('svc recovery status | restore --sequence | --activate --confirm work against the control plane', async () => {
    const { accessToken } = await createToken(plane.app, plane.owner, { name: 'cli', permissions: ['read', 'deploy', 'rollback'] });
    const home = await mkdtemp(join(work, 'home-'));
    const env = { SVC_SERVER: address, SVC_TOKEN: accessToken };
    const cli = (args: string[]) => runMain(['recovery', ...args, '--project', plane.project.slug], { home, env });

    const shown = await cli(['status']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/current epoch epoch-0003/);
    expect(shown.stdout).toMatch(/Committed through \d+, exported through \d+/);
    const json = await runMain(['recovery', 'status', '--project', plane.project.slug, '--json'], { home, env });
    const current = json.json<RecoveryStatusResponse>();
    expect(current.currentEpoch).toBe('epoch-0003');

    const restored = await cli(['restore', '--sequence', String(current.exportedThrough), '--json']);
    expect(restored.code, restored.stderr + restored.stdout).toBe(0);
    expect(restored.json<RestoreRecoveryResponse>().restore).toMatchObject({ epoch: 'epoch-0003', sequence: current.exportedThrough });

    const both = await cli(['restore', '--sequence', '1', '--as-of', '2026-01-01T00:00:00Z']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('SVC_USAGE');
    const unconfirmed = await cli(['restore', '--sequence', '0', '--activate']);
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain(`--confirm="restore ${plane.project.slug}"`);

    // Sequence 0 of the current epoch: the state right after the migration (no tasks written in it yet but those restored from the old epoch).
    const activated = await cli(['restore', '--sequence', '0', '--activate', `--confirm=restore ${plane.project.slug}`]);
    expect(activated.code, activated.stderr).toBe(0);
    expect(activated.stdout).toMatch(/Activated rrs_\w+ \(epoch epoch-0003, sequence 0\)/);
    expect(await tasksViaIngress()).toEqual(['first', 'fourth']);
    await eventually(async () => JSON.stringify(await servedTasks(plane.appUrl(), user)) === JSON.stringify(['first', 'fourth']), 30_000);
    const after = await eventually(async () => {
      const s = await status();
      return s.currentEpoch === 'epoch-0005' ? s : null;
    });
    expect(after.epochs.map((e) => e.id)).toEqual(['epoch-0001', 'epoch-0002', 'epoch-0003', 'epoch-0004', 'epoch-0005']);
  }, 120_000);

  it('a rollback with data continues the older epoch the snapshot belongs to; the newer ones stay restorable', async () => {
    const res = await plane.api('POST', `/api/projects/${plane.project.id}/rollback`, {
      releaseId: v1Id,
      restoreData: true,
      confirm: `restore ${plane.project.slug}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    // v2's pre-deploy snapshot is the final state of epoch-0002 (taken before that deploy rotated it).
    const back = await eventually(async () => {
      const s = await status();
      return s.currentEpoch === 'epoch-0002' ? s : null;
    });
    // epoch-0005 was live (not a failed candidate's): not abandoned, still restorable by id.
    expect(back.epochs.find((e) => e.id === 'epoch-0005')?.abandoned).toBe(false);
    await eventually(async () => JSON.stringify(await servedTasks(plane.appUrl(), user)) === JSON.stringify(['first', 'fourth']), 30_000);
    const before = back.committedThrough!;
    await add('seventh');
    const now = await exported();
    expect(now.currentEpoch).toBe('epoch-0002');
    expect(now.committedThrough).toBe(before + 1);
    const restored = await restore({ throughSequence: now.exportedThrough! });
    expect(restored.epoch).toBe('epoch-0002');
    expect(readDatabase(join(restoresDir(), `${restored.id}.db`)).tasks).toEqual(['first', 'fourth', 'seventh']);
  }, 120_000);
});
