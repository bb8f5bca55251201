// Backups of a deployed project through the real API: take, list, download, restore (with the
// confirmation phrase, into the stopped app), tamper detection, lock waiting, and the scheduler.
import { mkdtemp } from 'node:fs/promises';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import type { FeatureContext } from '../../src/core/feature-context.js';
import { BackupScheduler } from '../../src/backups/backup-scheduler.js';
import { upsertSchedule } from '../../src/backups/backup-store.js';
import type { Backup, BackupListResponse } from '../../src/backups/contract.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from '../releases/release-support.js';

let work: string;
let plane: Plane;
let healthy: Artifact;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-bak-art-'));
  healthy = await packFixture('healthy', work);
  plane = await startPlane();
  const res = await plane.upload(healthy);
  if (res.statusCode !== 201) throw new Error(res.body);
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

const base = () => `/api/projects/${plane.project.id}`;
async function addNote(text: string): Promise<void> {
  const res = await fetch(`${plane.appUrl()}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  expect(res.status).toBe(201);
}
async function notes(): Promise<string[]> {
  const res = await fetch(`${plane.appUrl()}/notes`);
  return ((await res.json()) as { notes: { text: string }[] }).notes.map((n) => n.text);
}
function kinds(): string[] {
  return (plane.plane.db.prepare("SELECT kind FROM audit_events WHERE kind LIKE 'backup.%' ORDER BY seq").all() as { kind: string }[]).map((r) => r.kind);
}

describe('backups', () => {
  let first: Backup;

  it('takes an encrypted backup, lists it, and downloads the decrypted database', async () => {
    await addNote('before backup');
    const res = await plane.api('POST', `${base()}/backups`);
    expect(res.statusCode, res.body).toBe(201);
    first = (res.json() as { backup: Backup }).backup;
    expect(first).toMatchObject({ kind: 'manual', hadDatabase: true });
    const file = join(plane.dataDir, 'projects', plane.project.id, 'backups', `${first.id}.svcbak`);
    expect(readFileSync(file).includes(Buffer.from('before backup'))).toBe(false);

    const list = (await plane.api('GET', `${base()}/backups`)).json() as BackupListResponse;
    expect(list.backups.map((b) => b.id)).toEqual([first.id]);

    const download = await plane.app.inject({ method: 'GET', url: `${base()}/backups/${first.id}/download`, headers: plane.owner.headers() });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/vnd.sqlite3');
    const copy = join(work, 'downloaded.db');
    writeFileSync(copy, download.rawPayload);
    const db = new Database(copy, { readonly: true });
    expect((db.prepare('SELECT text FROM notes').all() as { text: string }[]).map((r) => r.text)).toEqual(['before backup']);
    db.close();
    expect(kinds()).toContain('backup.create');
  });

  it('restores only with "restore <slug>", into the stopped app, which comes back with the old data', async () => {
    await addNote('after backup');
    expect(await notes()).toEqual(['before backup', 'after backup']);
    const wrong = await plane.api('POST', `${base()}/backups/${first.id}/restore`, { confirm: 'restore wrong' });
    expect(wrong.json().error.code).toBe('SVC_BACKUP_CONFIRMATION_MISMATCH');
    expect(await notes()).toEqual(['before backup', 'after backup']);
    const pidBefore = plane.plane.releases.current(plane.project.id)?.pid;

    const ok = await plane.api('POST', `${base()}/backups/${first.id}/restore`, { confirm: `restore ${plane.project.slug}` });
    expect(ok.statusCode, ok.body).toBe(200);
    const running = await eventually(() => plane.plane.releases.current(plane.project.id));
    expect(running.pid).not.toBe(pidBefore); // it was stopped and started again
    expect(await eventually(async () => (await notes()).length === 1 && (await notes()))).toEqual(['before backup']);
    expect(kinds()).toContain('backup.restore');
  });

  it('a tampered backup fails authentication: nothing restored, the app keeps running', async () => {
    await addNote('keep me');
    const res = await plane.api('POST', `${base()}/backups`);
    const backup = (res.json() as { backup: Backup }).backup;
    const file = join(plane.dataDir, 'projects', plane.project.id, 'backups', `${backup.id}.svcbak`);
    const bytes = readFileSync(file);
    bytes[bytes.length - 30]! ^= 0x55;
    writeFileSync(file, bytes);
    await addNote('newer');
    const pidBefore = plane.plane.releases.current(plane.project.id)?.pid;
    const restore = await plane.api('POST', `${base()}/backups/${backup.id}/restore`, { confirm: `restore ${plane.project.slug}` });
    expect(restore.json().error.code).toBe('SVC_BACKUP_DECRYPT_FAILED');
    const download = await plane.app.inject({ method: 'GET', url: `${base()}/backups/${backup.id}/download`, headers: plane.owner.headers() });
    expect(download.json().error.code).toBe('SVC_BACKUP_DECRYPT_FAILED');
    expect(plane.plane.releases.current(plane.project.id)?.pid).toBe(pidBefore);
    expect(await notes()).toEqual(['before backup', 'keep me', 'newer']);
  });

  it('waits for a deploy holding the project lock and never interleaves with it', async () => {
    const events: string[] = [];
    const lock = await plane.plane.releases.locks.acquire(plane.project.id, 'deploy');
    const pending = plane.api('POST', `${base()}/backups`).then((res) => {
      events.push(`backup ${res.statusCode}`);
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    events.push('deploy done');
    await lock.release();
    const res = await pending;
    expect(res.statusCode, res.body).toBe(201);
    expect(events).toEqual(['deploy done', 'backup 201']);
  });

  it('a viewer-level token cannot take or restore backups', async () => {
    const token = await plane.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: plane.owner.headers(),
      payload: { name: 'ro', permissions: ['read'] },
    });
    const raw = (token.json() as { accessToken: string }).accessToken;
    const res = await plane.app.inject({ method: 'POST', url: `${base()}/backups`, headers: { authorization: `Bearer ${raw}` } });
    expect(res.json().error.code).toBe('SVC_FORBIDDEN');
    const restore = await plane.app.inject({
      method: 'POST',
      url: `${base()}/backups/${first.id}/restore`,
      headers: { authorization: `Bearer ${raw}` },
      payload: { confirm: `restore ${plane.project.slug}` },
    });
    expect(restore.json().error.code).toBe('SVC_FORBIDDEN');
  });

  it('scheduled backups run when due, keep the retention, and failures and overdue schedules are audited', async () => {
    const hour = 3_600_000;
    const clock = manualClock(Date.now());
    const deps = plane.plane.backups.deps;
    const ctx: FeatureContext = { ...deps.ctx, clock };
    const scheduler = new BackupScheduler({ ...deps, ctx, lockWaitMs: 0 }, { timer: { every: () => () => undefined } });
    upsertSchedule(ctx, plane.project.id, { intervalMs: hour, keep: 2, maxAgeMs: 24 * hour }, clock.now());
    const scheduled = () =>
      plane.plane.db.prepare("SELECT id, path FROM backups WHERE project_id = ? AND kind = 'scheduled'").all(plane.project.id) as {
        id: string;
        path: string;
      }[];

    await scheduler.tick();
    expect(scheduled()).toHaveLength(0);
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(hour + 1000);
      await scheduler.tick();
      paths.push(...scheduled().map((s) => s.path));
    }
    expect(scheduled()).toHaveLength(2);
    const removed = [...new Set(paths)].filter((p) => !scheduled().some((s) => s.path === p));
    expect(removed).toHaveLength(1);
    expect(existsSync(removed[0]!)).toBe(false);
    expect(kinds()).toContain('backup.delete');

    // The lock is busy at every due time: failures are audited, then the schedule becomes overdue (once).
    const lock = await plane.plane.releases.locks.acquire(plane.project.id, 'deploy');
    try {
      for (let i = 0; i < 4; i++) {
        clock.advance(hour);
        await scheduler.tick();
      }
    } finally {
      await lock.release();
    }
    const all = kinds();
    expect(all.filter((k) => k === 'backup.failed').length).toBeGreaterThanOrEqual(2);
    expect(all.filter((k) => k === 'backup.overdue')).toHaveLength(1);
    const list = (await plane.api('GET', `${base()}/backups`)).json() as BackupListResponse;
    expect(list.schedule).toMatchObject({ intervalMinutes: 60, keep: 2 });
    // The failed run is kept on the schedule (the monitor's backup.failed alert) until the next success.
    expect(list.schedule?.lastFailure?.code).toMatch(/^SVC_/);
    clock.advance(hour);
    await scheduler.tick();
    const after = (await plane.api('GET', `${base()}/backups`)).json() as BackupListResponse;
    expect(after.schedule).toMatchObject({ lastFailure: null, overdue: false });
  });
});
