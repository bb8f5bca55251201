// Managed buckets on the platform: each app start gets its project's isolated bucket volume,
// catalog, prefix and a stable derived signing key that no API returns.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketLimitsFromEnv } from '../../src/projects/bucket-environment.js';
import { isSvcError } from '../../src/core/errors.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';

let work: string;
let plane: Plane;
const art: Record<string, Artifact> = {};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-bucket-env-'));
  for (const app of ['healthy', 'healthy-v2']) art[app] = await packFixture(app, work);
  plane = await startPlane({ env: { SVC_PROJECT_BUCKET_MAX_BYTES: '1048576' } });
}, 120_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  await removeDataDir(work);
});

async function env(name: string): Promise<string | null> {
  const res = await fetch(`${plane.appUrl()}/env/${name}`);
  const body = (await res.json()) as { value?: string | null };
  return body.value ?? null;
}

describe('platform bucket environment', () => {
  it('gives every release the same project volume, prefix, limits and derived key, never through the API', async () => {
    expect((await plane.upload(art.healthy!)).statusCode).toBe(201);
    // Inside the sandbox the project's data directory (on the host under projects/<id>/data) is /data.
    expect(await env('SVC_BUCKET_DIR')).toBe('/data/buckets');
    expect(await env('SVC_BUCKET_CATALOG')).toBe('/data/buckets/catalog.sqlite');
    expect(await env('SVC_DATA_DIR')).toBe('/data');
    expect(await env('SVC_BUCKET_PREFIX')).toBe(`projects/${plane.project.id}/`);
    expect(await env('SVC_BUCKET_MAX_BYTES')).toBe('1048576');
    const key = await env('SVC_BUCKET_SIGNING_KEY');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);

    expect((await plane.upload(art['healthy-v2']!)).statusCode).toBe(201);
    expect(await env('SVC_BUCKET_SIGNING_KEY')).toBe(key);
    for (const url of [`/api/projects/${plane.project.id}`, `/api/projects/${plane.project.id}/releases`, `/api/projects/${plane.project.id}/storage`]) {
      const res = await plane.api('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(key!);
    }
  });

  it('rejects malformed administrator limits with a clear code', () => {
    expect(bucketLimitsFromEnv({ SVC_PROJECT_BUCKET_MAX_OBJECTS: '10' })).toEqual({ maxObjects: 10 });
    let error: unknown;
    try {
      bucketLimitsFromEnv({ SVC_PROJECT_BUCKET_MAX_BYTES: '1e9' });
    } catch (caught) {
      error = caught;
    }
    expect(isSvcError(error, 'SVC_VALIDATION')).toBe(true);
  });
});
