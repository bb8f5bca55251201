// A full disk under the data directory (a real, tiny tmpfs): a deploy fails with SVC_DISK_FULL at
// the project lock and leaves no temp file; the control plane still starts on the full disk and serves
// reads and the running app; once space is back, deploys work again.
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { mountSmallFilesystem, type SmallFilesystem } from '../core/small-filesystem.js';
import { eventually, packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { skipOrFail } from '../support/require-components.js';

const env = { SVC_SANDBOX: 'off' };
let work: string;
let v1: Artifact;
let v2: Artifact;
let fs: SmallFilesystem | null;
let plane: Plane | undefined;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rel-full-'));
  v1 = await packFixture('healthy', work);
  v2 = await packFixture('healthy-v2', work);
  fs = mountSmallFilesystem('32m');
}, 120_000);
afterAll(async () => {
  await plane?.close();
  fs?.unmount();
  await removeDataDir(work);
});

describe('disk full', () => {
  it('deploy → SVC_DISK_FULL at the lock, start-up on the full disk serves reads, deploys resume once space is back', async (ctx) => {
    if (!fs) skipOrFail(ctx, 'mount -t tmpfs is not permitted here');
    const dataDir = join(fs.dir, 'data');
    const locks = join(dataDir, 'locks');
    plane = await startPlane({ dataDir, env });
    const first = await plane.upload(v1);
    expect(first.statusCode, first.body).toBe(201);
    const { owner, project } = plane;

    fs.fill();
    const refused = await plane.upload(v2);
    expect(refused.statusCode, refused.body).toBe(507);
    expect(refused.json().error.code).toBe('SVC_DISK_FULL');
    expect(existsSync(locks) ? readdirSync(locks) : []).toEqual([]); // no lock, no .tmp left behind

    // A restart on the full disk: the control plane comes up, serves reads and keeps the app running.
    await plane.close();
    plane = await startPlane({ dataDir, env, reuse: { owner, project } });
    const list = await plane.api('GET', `/api/projects/${project.id}/releases`);
    expect(list.statusCode, list.body).toBe(200);
    const releases = (list.json() as ReleaseListResponse).releases;
    expect(releases.find((r) => r.status === 'active')?.id).toBe(first.json().release.id);
    expect((await plane.api('GET', '/api/projects')).statusCode).toBe(200);
    const running = plane;
    const health = await eventually(async () => (await fetch(`${running.appUrl()}/healthz`)).ok, 15_000);
    expect(health).toBe(true);
    const again = await plane.upload(v2);
    expect(again.json().error.code).toBe('SVC_DISK_FULL');
    expect(existsSync(locks) ? readdirSync(locks) : []).toEqual([]);

    fs.free();
    const resumed = await plane.upload(v2);
    expect(resumed.statusCode, resumed.body).toBe(201);
    expect(resumed.json().release.status).toBe('active');
  }, 120_000);
});
