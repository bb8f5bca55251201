// Deploys with migrations stop the active app first (one writer while the schema changes); the
// ingress holds the project's requests through that window instead of failing them, and hands them
// to the new release, or to the prior one again when the candidate fails.
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { steadyTraffic } from './steady-traffic.js';

describe('requests held through a deploy with migrations', () => {
  let plane: Plane;
  let work: string;
  let origin: string;
  const art: Record<string, Artifact> = {};

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-held-'));
    plane = await startPlane();
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
    art.v1 = await packFixture('healthy', work);
    art.v2 = await packFixture('healthy-v2', work);
    // A third migration that fails when applied (not when checked read-only): the candidate fails after the stop.
    art.broken = await packFixture('healthy-v2', work, async (dir) => {
      await writeFile(join(dir, 'migrations', '0003_missing_table.sql'), 'INSERT INTO no_such_table (x) VALUES (1);\n');
    });
  }, 120_000);
  afterAll(async () => {
    await plane?.close();
    if (plane) await removeDataDir(plane.dataDir);
    if (work) await removeDataDir(work);
  });

  it('a migration deploy and a failing migration fail no request; held requests go to whatever serves next', async () => {
    const traffic = () => steadyTraffic(origin, `${plane.project.slug}.localhost`);
    const first = await plane.upload(art.v1!);
    expect(first.json().release.status, first.body).toBe('active');

    const duringMigration = traffic();
    const second = await plane.upload(art.v2!);
    await new Promise((r) => setTimeout(r, 300));
    const seen = await duringMigration.stop();
    expect(second.json().release.status, second.body).toBe('active');
    expect(seen.failures).toEqual([]);
    expect(seen.releases.has(second.json().release.id as string)).toBe(true);

    const duringFailure = traffic();
    const broken = await plane.upload(art.broken!);
    await new Promise((r) => setTimeout(r, 300));
    const seen2 = await duringFailure.stop();
    expect(broken.json().release).toMatchObject({ status: 'failed', failure: { step: 'migrate' } });
    expect(seen2.failures).toEqual([]);
    expect([...seen2.releases]).toEqual([second.json().release.id]);
    console.log(`held deploy: ${seen.ok + seen2.ok} answers, longest ${Math.round(Math.max(seen.longestMs, seen2.longestMs))} ms`);
  }, 120_000);
});
