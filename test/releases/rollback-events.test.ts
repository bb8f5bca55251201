// POST …/rollback?wait=false against a real control plane on a real port: a refused rollback still
// fails at once with its code; an accepted one answers 202 (running) before its steps ran, the target's
// event stream then carries its steps and ends with the active release (or with the failure's code),
// and a plain POST (no query, as older CLIs send it) still answers 200 when done.
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectLayout } from '../../src/releases/project-layout.js';
import { releaseEventSchema, type ReleaseEvent } from '../../src/releases/contract.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';

let work: string;
let plane: Plane;
let origin: string;
let v1: string;
let v2: string;
let flagFile: string;

// The healthy fixture, with /healthz answering 503 while <data>/unhealthy exists.
async function flaggable(dir: string, config: Parameters<NonNullable<Parameters<typeof packFixture>[2]>>[1]) {
  const file = join(dir, 'dist', 'server.mjs');
  const source = await readFile(file, 'utf8');
  const marker = "if (pathname === '/healthz')";
  expect(source).toContain(marker);
  const guard = `if (pathname === '/healthz' && (await import('node:fs')).existsSync(process.env.SVC_DATA_DIR + '/unhealthy')) return send(res, 503, { ok: false });\n    `;
  await writeFile(file, source.replace(marker, guard + marker));
  return { ...config, health: { ...config.health, timeoutMs: 2_000 } };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-rollback-events-'));
  const first: Artifact = await packFixture('healthy', work, flaggable);
  const second: Artifact = await packFixture('healthy-v2', work);
  plane = await startPlane();
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
  flagFile = join(projectLayout(plane.dataDir, plane.project.id).dataDir, 'unhealthy');
  for (const artifact of [first, second]) {
    const res = await plane.upload(artifact);
    expect(res.json().release.status, res.body).toBe('active');
  }
  const list = (await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as { releases: Array<{ id: string }> };
  [v2, v1] = list.releases.map((r) => r.id) as [string, string];
}, 180_000);

afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await rm(work, { recursive: true, force: true });
});

const headers = () => ({ ...plane.owner.headers(), 'content-type': 'application/json' });

async function rollback(body: object, wait = false): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${origin}/api/projects/${plane.project.id}/rollback${wait ? '' : '?wait=false'}`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Every line of the release's event stream until it closes. */
async function events(releaseId: string): Promise<ReleaseEvent[]> {
  const res = await fetch(`${origin}/api/projects/${plane.project.id}/releases/${releaseId}/events`, { headers: plane.owner.headers() });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => releaseEventSchema.parse(JSON.parse(line)));
}

const activeId = async (): Promise<string> =>
  ((await plane.api('GET', `/api/projects/${plane.project.id}/releases`)).json() as { activeReleaseId: string }).activeReleaseId;

describe('rollback with wait=false', () => {
  it('refuses a rollback it cannot start synchronously, with its code', async () => {
    const unknown = await rollback({ releaseId: 'rel_nope' });
    expect(unknown.status).toBe(404);
    const phrase = await rollback({ releaseId: v1, restoreData: true, confirm: 'restore something-else' });
    expect(phrase.status, JSON.stringify(phrase.json)).toBe(400);
    expect((phrase.json.error as { code: string }).code).toBe('SVC_RELEASE_CONFIRMATION_MISMATCH');
    expect(await activeId()).toBe(v2);
  });

  it('answers 202 once started, then the target streams its steps and ends active', async () => {
    const started = await rollback({ releaseId: v1 });
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    expect(started.json).toMatchObject({ running: true, previousReleaseId: v2, restoredData: false, release: { id: v1 } });
    expect((started.json.release as { status: string }).status).not.toBe('active');
    const lines = await events(v1);
    const steps = lines.flatMap((e) => (e.type === 'step' ? [e.step] : []));
    expect(steps).toEqual(expect.arrayContaining(['start', 'health', 'activate']));
    expect(steps.indexOf('health')).toBeLessThan(steps.indexOf('activate'));
    const end = lines.at(-1)!;
    expect(end).toMatchObject({ type: 'end', release: { id: v1, status: 'active' }, rollback: { outcome: 'complete' } });
    expect(await activeId()).toBe(v1);
  }, 60_000);

  it('ends the stream of a failing rollback with its code, the prior release still active', async () => {
    const back = await rollback({ releaseId: v2 }, true); // no query: answered when done, as before
    expect(back.status, JSON.stringify(back.json)).toBe(200);
    expect(back.json).toMatchObject({ release: { id: v2, status: 'active' }, previousReleaseId: v1 });
    expect(back.json.running).toBeUndefined();

    await writeFile(flagFile, 'x');
    try {
      const started = await rollback({ releaseId: v1 });
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      const lines = await events(v1);
      expect(lines.some((e) => e.type === 'step' && e.step === 'health')).toBe(true);
      expect(lines.at(-1)).toMatchObject({
        type: 'end',
        release: { id: v1, status: 'inactive' },
        rollback: { outcome: 'failed', error: { code: 'SVC_HEALTH_CHECK_FAILED' } },
      });
      expect(await activeId()).toBe(v2);
    } finally {
      await rm(flagFile, { force: true });
    }
  }, 60_000);
});
