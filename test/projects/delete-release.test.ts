// Release cleanup (DELETE /api/projects/:id/releases/:releaseId) with every rule:
// rollback permission, exact phrase, never the active release, the predecessor of the active one only
// with allowRollbackLoss (which also removes the active release's data-restore snapshot), metadata and
// audit history kept, storage usage updated.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Release, ReleaseListResponse, UploadResponse } from '../../src/releases/contract.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from '../releases/release-support.js';

let work: string;
let plane: Plane;
const art: Record<string, Artifact> = {};
const rel: Release[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-relclean-'));
  art.v1 = await packFixture('healthy', work);
  art.v2 = await packFixture('healthy-v2', work);
  plane = await startPlane();
  for (const a of [art.v1, art.v2]) {
    const res = await plane.upload(a!);
    if (res.statusCode !== 201) throw new Error(res.body);
    rel.push((res.json() as UploadResponse).release);
  }
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

const phrase = (id: string) => `delete-release ${plane.project.slug} ${id}`;
const remove = (id: string, body: unknown, headers = plane.owner.headers()) =>
  plane.app.inject({ method: 'DELETE', url: `/api/projects/${plane.project.id}/releases/${id}`, headers, payload: body as object });
const releaseDir = (id: string) => join(plane.dataDir, 'projects', plane.project.id, 'releases', id);
async function list(): Promise<ReleaseListResponse> {
  return (await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as ReleaseListResponse;
}

describe('release cleanup', () => {
  it('never removes the active release', async () => {
    const res = await remove(rel[1]!.id, { confirm: phrase(rel[1]!.id), allowRollbackLoss: true });
    expect(res.json().error.code).toBe('SVC_RELEASE_ACTIVE_UNDELETABLE');
    expect(existsSync(releaseDir(rel[1]!.id))).toBe(true);
  });

  it('refuses the predecessor of the active release without allowRollbackLoss, and a wrong phrase', async () => {
    const v1 = rel[0]!.id;
    expect((await remove(v1, { confirm: phrase(v1) })).json().error.code).toBe('SVC_ROLLBACK_LOSS_NOT_ALLOWED');
    expect((await remove(v1, { confirm: `delete-release ${plane.project.slug} other`, allowRollbackLoss: true })).json().error.code).toBe(
      'SVC_RELEASE_CONFIRMATION_MISMATCH',
    );
    expect((await remove(v1, { confirm: '' })).statusCode).toBeGreaterThanOrEqual(400);
    expect(existsSync(releaseDir(v1))).toBe(true);
  });

  it('needs the rollback permission', async () => {
    const res = await plane.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: plane.owner.headers(),
      payload: { name: 'deployer', permissions: ['read', 'deploy'] },
    });
    const token = (res.json() as { accessToken: string }).accessToken;
    const refused = await remove(rel[0]!.id, { confirm: phrase(rel[0]!.id), allowRollbackLoss: true }, { authorization: `Bearer ${token}` });
    expect(refused.json().error.code).toBe('SVC_FORBIDDEN');
  });

  it('removes an older inactive release without flags; metadata, audit and the rollback target stay', async () => {
    const res = await plane.upload(art.v2!); // v3: v2 becomes the predecessor, v1 an ordinary inactive release
    expect(res.statusCode, res.body).toBe(201);
    rel.push((res.json() as UploadResponse).release);
    const before = await list();
    const v1 = rel[0]!.id;
    const ok = await remove(v1, { confirm: phrase(v1) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ releaseId: v1, artifactRetained: false, removedSnapshot: false, status: 'inactive' });
    expect(existsSync(releaseDir(v1))).toBe(false);
    const after = await list();
    expect(after.releases.find((r) => r.id === v1)).toMatchObject({ status: 'inactive', artifactRetained: false });
    expect(after.storage.usage.retainedArtifacts).toBe(before.storage.usage.retainedArtifacts - 1);
    expect(after.storage.usage.bundleBytes).toBeLessThan(before.storage.usage.bundleBytes);
    const again = await remove(v1, { confirm: phrase(v1) });
    expect(again.json().error.code).toBe('SVC_RELEASE_INVALID_TRANSITION');
    // A removed release can no longer be rolled back to.
    const rollback = await plane.api('POST', `/api/projects/${plane.project.id}/rollback`, { releaseId: v1 });
    expect(rollback.statusCode).toBeGreaterThanOrEqual(400);
  });

  it('with allowRollbackLoss removes the predecessor and the active release’s data-restore snapshot', async () => {
    const [, v2, v3] = rel as [Release, Release, Release];
    const snapshots = () =>
      plane.plane.db.prepare('SELECT path, removed_at FROM release_snapshots WHERE release_id = ?').all(v3.id) as { path: string; removed_at: number | null }[];
    const kept = snapshots().find((s) => s.removed_at === null)!;
    expect(existsSync(kept.path)).toBe(true);
    const res = await remove(v2.id, { confirm: phrase(v2.id), allowRollbackLoss: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ removedSnapshot: true });
    expect(existsSync(releaseDir(v2.id))).toBe(false);
    expect(existsSync(kept.path)).toBe(false);
    expect(snapshots().every((s) => s.removed_at !== null)).toBe(true);
    const restore = await plane.api('POST', `/api/projects/${plane.project.id}/rollback`, {
      releaseId: v2.id,
      restoreData: true,
      confirm: `restore ${plane.project.slug}`,
    });
    expect(restore.statusCode).toBeGreaterThanOrEqual(400);
    const events = (plane.plane.db.prepare("SELECT metadata FROM audit_events WHERE kind = 'release.delete' ORDER BY seq").all() as { metadata: string }[]).map(
      (e) => JSON.parse(e.metadata),
    );
    expect(events).toEqual([
      expect.objectContaining({ releaseId: rel[0]!.id, rollbackLoss: false, snapshotRemoved: false }),
      expect.objectContaining({ releaseId: v2.id, rollbackLoss: true, snapshotRemoved: true }),
    ]);
    // The app keeps serving the active release.
    const served = await fetch(`${plane.appUrl()}/`);
    expect(served.status).toBe(200);
  });
});
