// Bad input and rules around the release transaction: migration history, unsafe SQL, database.path,
// a concurrent deploy, hostile artifacts, limits, a full disk, rollback and logs.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse, RollbackResponse, UploadResponse } from '../../src/releases/contract.js';
import { ROOT, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { skipOrFail } from '../support/require-components.js';

let work: string;
const art: Record<string, Artifact> = {};
const planes: Plane[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rel-rules-'));
  art.v1 = await packFixture('healthy', work);
  art.v2 = await packFixture('healthy-v2', work);
  art.edited = await packFixture('healthy-v2', work, async (dir) => appendFile(join(dir, 'migrations', '0001_init.sql'), '\n-- edited\n'));
  art.unsafe = await packFixture('healthy', work, async (dir) => writeFile(join(dir, 'migrations', '0002_pragma.sql'), 'PRAGMA user_version = 7;\n'));
  art.unsafeAllowed = await packFixture('healthy', work, async (dir, config) => {
    await writeFile(join(dir, 'migrations', '0002_pragma.sql'), 'PRAGMA user_version = 7;\n');
    return { ...config, database: { ...config.database, allowUnsafeMigrations: true } };
  });
  art.otherDb = await packFixture('healthy', work, async (_dir, config) => ({ ...config, database: { ...config.database, path: 'other.db' } }));
  art.big = await packFixture('healthy', work, async (dir) => {
    const { randomBytes } = await import('node:crypto');
    await writeFile(join(dir, 'dist', 'blob.bin'), randomBytes(3 * 1024 * 1024));
  });
}, 120_000);
afterEach(async () => {
  for (const p of planes.splice(0)) {
    await p.close();
    try {
      execFileSync('umount', [join(p.dataDir, 'projects', p.project.id, 'releases')], { stdio: 'ignore' });
    } catch {
      // not mounted
    }
    await removeDataDir(p.dataDir);
  }
});
afterAll(() => removeDataDir(work));

async function plane(env: Record<string, string> = {}): Promise<Plane> {
  const p = await startPlane({ env });
  planes.push(p);
  return p;
}
async function deploy(p: Plane, a: Artifact): Promise<UploadResponse['release']> {
  const res = await p.upload(a);
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as UploadResponse).release;
}
const pidOf = (p: Plane) => p.plane.releases.current(p.project.id)?.pid;

describe('migration rules', () => {
  it('an edited migration history is rejected before the active app stops (no outage)', async () => {
    const p = await plane();
    const v1 = await deploy(p, art.v1!);
    const pid = pidOf(p);
    const failed = await deploy(p, art.edited!);
    expect(failed.failure).toMatchObject({ step: 'verify', code: 'SVC_MIGRATION_HISTORY_EDITED' });
    expect(pidOf(p)).toBe(pid);
    expect(p.plane.releases.current(p.project.id)?.releaseId).toBe(v1.id);
  });

  it('unsafe statements need both database.allowUnsafeMigrations and the operator setting', async () => {
    const p = await plane();
    await deploy(p, art.v1!);
    expect((await deploy(p, art.unsafe!)).failure?.code).toBe('SVC_MIGRATION_UNSAFE');
    expect((await deploy(p, art.unsafeAllowed!)).failure?.code).toBe('SVC_MIGRATION_UNSAFE');
    const q = await plane({ SVC_ALLOW_UNSAFE_MIGRATIONS: 'true' });
    await deploy(q, art.v1!);
    expect((await deploy(q, art.unsafe!)).failure?.code).toBe('SVC_MIGRATION_UNSAFE');
    expect((await deploy(q, art.unsafeAllowed!)).status).toBe('active');
  });

  it('a changed database.path is rejected and creates no release', async () => {
    const p = await plane();
    await deploy(p, art.v1!);
    const res = await p.upload(art.otherDb!);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('SVC_DATABASE_PATH_CHANGED');
    expect(((await p.api('GET', `/api/projects/${p.project.id}/releases`)).json() as ReleaseListResponse).releases).toHaveLength(1);
  });
});

describe('concurrency, hostile input and limits', () => {
  it('a second deploy while one runs is refused with SVC_PROJECT_LOCKED and never interleaves', async () => {
    const p = await plane();
    const first = await p.upload(art.v1!, { wait: false });
    expect(first.statusCode, first.body).toBe(202);
    const second = await p.upload(art.v2!);
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('SVC_PROJECT_LOCKED');
    const id = (first.json() as UploadResponse).release.id;
    await expect
      .poll(async () => ((await p.api('GET', `/api/projects/${p.project.id}/releases/${id}`)).json() as { release: { status: string } }).release.status, {
        timeout: 20_000,
      })
      .toBe('active');
  });

  it('every hostile fixture is rejected with its code before anything is written', async () => {
    const p = await plane();
    const dir = join(ROOT, 'fixtures', 'hostile', 'generated');
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { fixtures: { file: string; code: string; name: string }[] };
    const { createHash } = await import('node:crypto');
    for (const f of manifest.fixtures) {
      const bytes = readFileSync(join(dir, f.file));
      const digest = f.code === 'SVC_ARTIFACT_DIGEST_MISMATCH' ? 'f'.repeat(64) : createHash('sha256').update(bytes).digest('hex');
      const res = await p.upload({ bytes, digest });
      expect(res.statusCode, f.name).toBeGreaterThanOrEqual(400);
      expect(res.json().error.code, f.name).toBe(f.code);
    }
    expect(((await p.api('GET', `/api/projects/${p.project.id}/releases`)).json() as ReleaseListResponse).releases).toHaveLength(0);
    const releasesDir = join(p.dataDir, 'projects', p.project.id, 'releases');
    expect(existsSync(releasesDir) ? readdirSync(releasesDir) : []).toEqual([]);
  }, 120_000);

  it('the retained-artifact count and the storage quota are enforced before extraction', async () => {
    const p = await plane({ SVC_PROJECT_MAX_RELEASES: '1' });
    await deploy(p, art.v1!);
    const res = await p.upload(art.v2!);
    expect(res.json().error.code).toBe('SVC_RELEASE_RETAINED_LIMIT');
    const q = await plane({ SVC_PROJECT_STORAGE_BYTES: String(2 * 1024 * 1024) });
    const big = await q.upload(art.big!);
    expect(big.statusCode).toBe(507);
    expect(big.json().error.code).toBe('SVC_STORAGE_QUOTA_EXCEEDED');
    const storage = (await q.api('GET', `/api/projects/${q.project.id}/storage`)).json();
    expect(storage.limits.maxStorageBytes).toBe(2 * 1024 * 1024);
  });

  it('a full disk during extraction fails the release and keeps the previous one', async (ctx) => {
    const p = await plane();
    const v1 = await deploy(p, art.v1!);
    const releases = join(p.dataDir, 'projects', p.project.id, 'releases');
    const probe = join(p.dataDir, 'mount-probe');
    await mkdir(probe);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', probe], { stdio: 'ignore' });
      execFileSync('umount', [probe]);
    } catch {
      skipOrFail(ctx, 'mount -t tmpfs is not permitted here; full-disk test skipped');
    }
    // Keep v1 reachable: move its directory onto the small tmpfs with it.
    execFileSync('sh', [
      '-c',
      `chmod -R u+w "${releases}" && mv "${releases}" "${releases}.old" && mkdir "${releases}" && mount -t tmpfs -o size=2m tmpfs "${releases}" && cp -a "${releases}.old/." "${releases}/" && rm -rf "${releases}.old"`,
    ]);
    const failed = await deploy(p, art.big!);
    expect(failed.failure).toMatchObject({ step: 'extract', code: 'SVC_DISK_FULL' });
    expect(p.plane.releases.current(p.project.id)?.releaseId).toBe(v1.id);
    expect(readdirSync(releases)).toEqual([v1.id]);
  });
});

describe('rollback and logs', () => {
  it('code-only rollback keeps data; restore-data needs the phrase and restores the pre-deploy snapshot', async () => {
    const p = await plane();
    const v1 = await deploy(p, art.v1!);
    await fetch(`${p.appUrl()}/notes`, { method: 'POST', body: JSON.stringify({ text: 'v1 note' }) });
    const v2 = await deploy(p, art.v2!);
    await fetch(`${p.appUrl()}/notes`, { method: 'POST', body: JSON.stringify({ text: 'v2 note' }) });
    const url = `/api/projects/${p.project.id}/rollback`;

    const wrong = await p.api('POST', url, { releaseId: v1.id, restoreData: true, confirm: 'restore nope' });
    expect(wrong.json().error.code).toBe('SVC_RELEASE_CONFIRMATION_MISMATCH');
    const restored = await p.api('POST', url, { releaseId: v1.id, restoreData: true, confirm: `restore ${p.project.slug}` });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json() as RollbackResponse).toMatchObject({ release: { id: v1.id, status: 'active' }, previousReleaseId: v2.id, restoredData: true });
    const notes = async () => ((await (await fetch(`${p.appUrl()}/notes`)).json()) as { notes: { text: string }[] }).notes.map((n) => n.text);
    expect(await notes()).toEqual(['v1 note']);

    // Back to v2 code-only: the database stays as it is now; v1 has no snapshot to restore from.
    const code = await p.api('POST', url, { releaseId: v2.id });
    expect(code.statusCode, code.body).toBe(200);
    expect((await (await fetch(`${p.appUrl()}/`)).json()).version).toBe(2);
    const again = await p.api('POST', url, { releaseId: v1.id, restoreData: true, confirm: `restore ${p.project.slug}` });
    expect(again.json().error.code).toBe('SVC_RESTORE_NOT_ALLOWED');
    const kinds = ((await p.api('GET', `/api/projects/${p.project.id}/audit?limit=200`)).json() as { events: { kind: string }[] }).events.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['rollback.restore_data', 'rollback.complete']));
  }, 60_000);

  it('logs: app output and platform lines, filtered and followed as NDJSON', async () => {
    const p = await plane();
    const v1 = await deploy(p, art.v1!);
    type Entries = { entries: { stream: string; line: string; releaseId: string }[] };
    const read = async () => ((await p.api('GET', `/api/projects/${p.project.id}/logs?limit=100`)).json() as Entries).entries;
    // App output reaches the log store through the runner's capture files (polled).
    await expect
      .poll(async () => (await read()).some((e) => e.stream === 'stdout' && e.line.includes('healthy listening') && e.releaseId === v1.id), { timeout: 5000 })
      .toBe(true);
    const entries = await read();
    expect(entries.some((e) => e.stream === 'system' && e.line.includes('deploy: active'))).toBe(true);
    const address = await p.app.listen({ port: 0, host: '127.0.0.1' });
    const controller = new AbortController();
    const stream = await fetch(`${address}/api/projects/${p.project.id}/logs?follow=true&stream=system&limit=1`, {
      headers: p.owner.headers(),
      signal: controller.signal,
    });
    expect(stream.headers.get('content-type')).toContain('application/x-ndjson');
    const reader = stream.body!.getReader();
    p.plane.releases.logs.system(p.project.id, v1.id, 'hello follower');
    let text = '';
    while (!text.includes('hello follower')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
  });
});
