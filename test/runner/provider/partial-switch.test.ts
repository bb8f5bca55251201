// Fault test (partial ingress switch): a failure between "candidate healthy" and the
// pointer switch of a stop-first (migration) deploy, and one right after the switch of a blue-green
// (code-only) deploy, each leave exactly one consistent active pointer and a serving app; a retry of the
// same operation converges. The database follows the pointer (snapshot restore).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { openInProcessProvider, type InProcessProvider } from '../supervision/in-process-provider.js';
import { appPids, reconcileRequest, writerMonitor } from '../supervision/supervision-helpers.js';
import { packedFixture } from './provider-helpers.js';

let dir: string;
let node: InProcessProvider;
const artifacts: Record<string, ProviderArtifact> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-partial-switch-'));
  for (const name of ['healthy', 'healthy-v2']) artifacts[name] = await packedFixture(name);
  node = openInProcessProvider(dir);
}, 60_000);
afterAll(async () => {
  await node.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

const project = (): string => join(dir, 'projects', 'prj_c');
const pointer = (): ActivePointer => JSON.parse(readFileSync(join(project(), 'active.json'), 'utf8')) as ActivePointer;
const columns = (): string[] => {
  const db = new Database(join(project(), 'data', 'app.db'), { readonly: true });
  try {
    return (db.prepare('PRAGMA table_info(notes)').all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
};
const version = async (p: ActivePointer): Promise<number> =>
  ((await (await fetch(`http://${p.host}:${p.port}/healthz`)).json()) as { version: number }).version;

describe('partial ingress switch', () => {
  it('a failure before or after the switch leaves one consistent pointer, one serving writer, and a retry converges', async () => {
    const writers = writerMonitor('prj_c');
    try {
      await node.provider.reconcile(reconcileRequest('prj_c', 1, artifacts.healthy!));
      const first = pointer();
      expect(first).toMatchObject({ generation: 1, releaseId: 'rel_1' });

      // Candidate healthy (and migrated), then a failure before the pointer moves: everything goes back.
      node.arm('after-health', 'rel_2');
      await expect(node.provider.reconcile(reconcileRequest('prj_c', 2, artifacts['healthy-v2']!))).rejects.toMatchObject({ code: 'SVC_PROVIDER_FAILED' });
      expect(pointer()).toEqual(first);
      expect(await version(first)).toBe(1);
      expect(columns()).not.toContain('done'); // migration 0002 undone with the snapshot
      expect(appPids('prj_c')).toHaveLength(1);
      expect(existsSync(join(project(), 'deploy-in-flight.json'))).toBe(false);

      // The coordinator retries the same operation: it converges.
      await node.provider.reconcile(reconcileRequest('prj_c', 2, artifacts['healthy-v2']!));
      expect(pointer()).toMatchObject({ generation: 2, releaseId: 'rel_2', previousReleaseId: 'rel_1' });
      expect(await version(pointer())).toBe(2);
      expect(columns()).toContain('done');
    } finally {
      writers.stop();
    }
    // Schema changes are stop-first: never two apps of the project at once.
    expect(writers.max()).toBe(1);

    // Code only (same migrations): blue-green. A failure right after the switch (before clean-up): the
    // new pointer stands; the replaced app keeps serving until the route to the new one is acknowledged.
    node.arm('after-switch', 'rel_3');
    const before = pointer();
    await expect(node.provider.reconcile(reconcileRequest('prj_c', 3, artifacts['healthy-v2']!))).rejects.toMatchObject({ code: 'SVC_PROVIDER_FAILED' });
    const switched = pointer();
    expect(switched).toMatchObject({ generation: 3, releaseId: 'rel_3', previousReleaseId: 'rel_2' });
    expect(switched.port).not.toBe(before.port);
    expect(await version(switched)).toBe(2);
    expect(await version(before)).toBe(2);
    expect(appPids('prj_c')).toHaveLength(2);
    await node.provider.routed!('prj_c', 3);
    const pids = appPids('prj_c');
    expect(pids).toHaveLength(1);
    await expect(fetch(`http://${before.host}:${before.port}/healthz`)).rejects.toThrow();

    // Retry: acknowledged without restarting the serving app; nothing is left in flight.
    await node.provider.reconcile(reconcileRequest('prj_c', 3, artifacts['healthy-v2']!));
    expect(pointer()).toEqual(switched);
    expect(appPids('prj_c')).toEqual(pids);
    expect(existsSync(join(project(), 'deploy-in-flight.json'))).toBe(false);
  }, 90_000);
});
