// Secret changes reach the app on its next supervised start (here: a crash restart), never earlier.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, packFixture, removeDataDir, startPlane, type Plane } from '../releases/release-support.js';

let work: string;
let plane: Plane;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-secret-restart-'));
  const artifact = await packFixture('healthy', work);
  plane = await startPlane();
  const res = await plane.upload(artifact);
  if (res.statusCode !== 201) throw new Error(res.body);
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

async function envOf(name: string): Promise<string | null> {
  const res = await fetch(`${plane.appUrl()}/env/${name}`);
  return ((await res.json()) as { value: string | null }).value;
}

describe('secrets and the supervisor', () => {
  it('a running app keeps its environment; the supervised restart after a crash gets the new secret', async () => {
    const put = await plane.app.inject({
      method: 'PUT',
      url: `/api/projects/${plane.project.id}/secrets/API_TOKEN`,
      headers: plane.owner.headers(),
      payload: { value: 'tok\nen' },
    });
    expect(put.statusCode).toBe(201);
    expect(await envOf('API_TOKEN')).toBeNull();
    const before = plane.plane.releases.current(plane.project.id)!;
    process.kill(before.pid!, 'SIGKILL');
    const after = await eventually(() => {
      const app = plane.plane.releases.current(plane.project.id);
      return app && app.pid !== before.pid ? app : null;
    }, 20_000);
    expect(after.pid).not.toBe(before.pid);
    expect(await eventually(async () => (await envOf('API_TOKEN')) === 'tok\nen')).toBe(true);
  }, 60_000);
});
