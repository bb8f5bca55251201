// Upload + release transaction through the real API: activation, failure restore, idempotency.
import { mkdtemp } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, type ErrorCode } from '../../src/core/errors.js';
import type { Release, ReleaseListResponse, UploadResponse } from '../../src/releases/contract.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';

let work: string;
let plane: Plane;
const art: Record<string, Artifact> = {};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rel-art-'));
  for (const app of ['healthy', 'healthy-v2', 'crash-on-boot', 'failing-health', 'bad-migration', 'slow-start']) art[app] = await packFixture(app, work);
  plane = await startPlane();
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

const dbFile = () => join(plane.dataDir, 'projects', plane.project.id, 'data', 'app.db');
function columns(table: string): string[] {
  const db = new Database(dbFile(), { readonly: true });
  try {
    return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
}
async function notes(): Promise<string[]> {
  const res = await fetch(`${plane.appUrl()}/notes`);
  return ((await res.json()) as { notes: { text: string }[] }).notes.map((n) => n.text);
}
async function served(): Promise<{ version: number; release: string }> {
  return (await (await fetch(`${plane.appUrl()}/`)).json()) as { version: number; release: string };
}
async function auditKinds(): Promise<string[]> {
  const res = await plane.api('GET', `/api/projects/${plane.project.id}/audit?limit=200`);
  return (res.json() as { events: { kind: string }[] }).events.map((e) => e.kind);
}

describe('release transaction', () => {
  let v1: Release;
  let v2: Release;

  it('deploys a healthy app: 201, active, migrations applied, snapshot size recorded, audited', async () => {
    const res = await plane.upload(art.healthy!);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json() as UploadResponse;
    v1 = body.release;
    expect(body.created).toBe(true);
    expect(v1.status).toBe('active');
    expect(v1.failure).toBeNull();
    expect(v1.digest).toBe(art.healthy!.digest);
    expect(v1.storage.snapshotBytes).toBe(0); // no database before the first deploy
    expect(await served()).toEqual({ app: 'healthy', version: 1, release: v1.id });
    expect(columns('notes')).toContain('text');
    const post = await fetch(`${plane.appUrl()}/notes`, { method: 'POST', body: JSON.stringify({ text: 'first' }) });
    expect(post.status).toBe(201);
    expect(await auditKinds()).toEqual(expect.arrayContaining(['release.create', 'release.activate']));
    // The release directory is read-only, data lives outside it.
    const dir = join(plane.dataDir, 'projects', plane.project.id, 'releases', v1.id);
    expect(existsSync(join(dir, 'dist', 'server.mjs'))).toBe(true);
    expect(statSync(dir).mode & 0o222).toBe(0);
    expect(statSync(join(dir, 'dist', 'server.mjs')).mode & 0o222).toBe(0);
  });

  it.each([
    ['crash-on-boot', 'SVC_APP_START_FAILED', 'health', null],
    ['failing-health', 'SVC_HEALTH_CHECK_FAILED', 'health', 'failing-health listening on http://'],
    ['slow-start', 'SVC_HEALTH_CHECK_FAILED', 'health', null],
    ['bad-migration', 'SVC_MIGRATION_FAILED', 'migrate', null],
  ])(
    '%s: marked failed with its reason; previous release serves; database restored',
    async (app, code, step, output) => {
      await fetch(`${plane.appUrl()}/notes`, { method: 'POST', body: JSON.stringify({ text: `before ${app}` }) });
      const before = await notes();
      const res = await plane.upload(art[app]!);
      expect(res.statusCode, res.body).toBe(201);
      const release = (res.json() as UploadResponse).release;
      expect(release.status).toBe('failed');
      expect(release.failure).toMatchObject({ code, step });
      expect(release.artifactRetained).toBe(false);
      await expect.poll(() => served().catch(() => null), { timeout: 15_000 }).toEqual({ app: 'healthy', version: 1, release: v1.id });
      expect(await notes()).toEqual(before);
      expect(columns('notes')).not.toContain('priority');
      expect(columns('notes')).not.toContain('done');
      const one = (await plane.api('GET', `/api/projects/${plane.project.id}/releases/${release.id}`)).json() as { release: Release };
      expect(one.release.failure?.code).toBe(code);
      // The registry's hint comes with the failure (the console does not bundle the registry).
      expect(one.release.failure?.hint).toBe(errorCodes[code as ErrorCode].hint);
      // The app's output before the failure is kept with it, bounded, without the platform's own failure line.
      if (output) expect(one.release.failure?.outputTail?.join('\n')).toContain(output);
      expect(one.release.failure?.outputTail?.length ?? 0).toBeLessThanOrEqual(20);
      expect(one.release.failure?.outputTail?.join('\n') ?? '').not.toContain('deploy failed at');
      expect(await auditKinds()).toContain('release.fail');
    },
    60_000,
  );

  it('the same Idempotency-Key returns the same release; another body under it is rejected', async () => {
    const key = 'ci-repo-1-commit-abc';
    const first = await plane.upload(art['healthy-v2']!, { key });
    expect(first.statusCode, first.body).toBe(201);
    v2 = (first.json() as UploadResponse).release;
    expect(v2.status).toBe('active');
    const again = await plane.upload(art['healthy-v2']!, { key });
    expect(again.statusCode).toBe(200);
    expect(again.json() as UploadResponse).toMatchObject({ created: false, release: { id: v2.id } });
    const other = await plane.upload(art.healthy!, { key });
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('SVC_IDEMPOTENCY_KEY_REUSED');
    // Same claimed digest, different bytes.
    const forged = await plane.upload(art['healthy-v2']!, { key, body: art.healthy!.bytes });
    expect(forged.json().error.code).toBe('SVC_IDEMPOTENCY_KEY_REUSED');
    const list = (await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as ReleaseListResponse;
    expect(list.releases[0]!.id).toBe(v2.id);
    expect(
      list.releases
        .filter((r) => r.id !== v2.id)
        .map((r) => r.status)
        .sort(),
    ).toEqual(['failed', 'failed', 'failed', 'failed', 'inactive']);
    expect(list.activeReleaseId).toBe(v2.id);
    expect(list.releases[0]!.predecessorId).toBe(v1.id);
    expect(list.releases[0]!.storage.snapshotBytes).toBeGreaterThan(0);
    expect(list.storage.usage.snapshotBytes).toBe(list.releases[0]!.storage.snapshotBytes);
    expect(columns('notes')).toContain('done');
    expect(await notes()).toContain('first');
  });

  it('rejects uploads without key, digest or the artifact media type before anything is created', async () => {
    const noKey = await plane.upload(art.healthy!, { headers: { 'idempotency-key': '' } });
    expect(noKey.json().error.code).toBe('SVC_IDEMPOTENCY_KEY_REQUIRED');
    const noDigest = await plane.upload(art.healthy!, { headers: { 'x-svc-artifact-digest': 'abc' } });
    expect(noDigest.json().error.code).toBe('SVC_ARTIFACT_DIGEST_REQUIRED');
    const wrongDigest = await plane.upload({ ...art.healthy!, digest: 'a'.repeat(64) });
    expect(wrongDigest.json().error.code).toBe('SVC_ARTIFACT_DIGEST_MISMATCH');
    const json = await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${plane.project.id}/releases`,
      headers: plane.owner.headers(),
      payload: { a: 1 },
    });
    expect(json.statusCode).toBe(415);
    const list = (await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as ReleaseListResponse;
    expect(list.releases).toHaveLength(6);
  });
});
