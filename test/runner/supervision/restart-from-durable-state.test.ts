// Fault test: restart from durable state. A provider hangs mid-deploy (after the
// candidate is healthy and migrated, before the pointer switch); a new provider on the same data waits for
// the old lease, verifies the old runtime gone, undoes the unswitched migration, restarts the active release,
// and converges on retry. Then provider and supervisor are both killed -9: the orphaned app is killed by the
// next provider after the lease. Throughout, at most one app process (writer) of the project runs.
// Run with the node default (sandboxed apps) and unsandboxed (SVC_SANDBOX=off).
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpDeploymentProvider } from '../../../runner/provider/create-http-deployment-provider.js';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { runtimeAlive } from '../../../runner/supervision/runtime-probe.js';
import { requireComponents } from '../../support/require-components.js';
import { packedFixture, TOKEN } from '../provider/provider-helpers.js';
import {
  appPids,
  isStopped,
  passableTempDir,
  reconcileRequest,
  sandboxComponents,
  startProvider,
  waitFor,
  writerMonitor,
  type ProviderProcess,
} from './supervision-helpers.js';

let dir: string;
const artifacts: Record<string, ProviderArtifact> = {};
const providers: ProviderProcess[] = [];
const LEASE_MS = 3000;
const sandboxGate = requireComponents('supervised sandbox (restart from durable state)', sandboxComponents);

beforeAll(async () => {
  dir = await passableTempDir('svc-supervision-restart-');
  for (const name of ['healthy', 'healthy-v2']) artifacts[name] = await packedFixture(name);
}, 60_000);
afterEach(async () => {
  for (const p of providers.splice(0)) p.child.kill('SIGKILL');
  // The supervisors notice and stop the apps; wait for that before the directory goes.
  for (const kind of ['sandbox', 'process']) await waitFor(() => listFences(join(dir, kind, 'runtime-fences')).length === 0, 20_000, 'supervisors cleaned up');
}, 30_000);
afterAll(() => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));

const client = (p: ProviderProcess) => createHttpDeploymentProvider({ baseUrl: p.url, token: TOKEN, retryDelayMs: 1, maxAttempts: 1 });
const columns = (dbPath: string): string[] => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare('PRAGMA table_info(notes)').all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
};
async function version(pointer: ActivePointer): Promise<number> {
  return ((await (await fetch(`http://${pointer.host}:${pointer.port}/healthz`)).json()) as { version: number }).version;
}

describe.each<{ kind: 'sandbox' | 'process'; env: Record<string, string>; skip: boolean }>([
  { kind: 'sandbox', env: {}, skip: sandboxGate.skip },
  { kind: 'process', env: { SVC_SANDBOX: 'off' }, skip: false },
])('restart from durable state ($kind runtime)', ({ kind, env, skip }) => {
  beforeAll(() => {
    if (kind === 'sandbox') sandboxGate.assertPresent();
  });

  it.skipIf(skip)(
    'waits for the old lease, verifies cleanup, undoes the unswitched deploy and reconverges with one writer',
    async () => {
      const dataDir = join(dir, kind);
      const project = join(dataDir, 'projects', 'prj_b');
      const pointer = (): ActivePointer => JSON.parse(readFileSync(join(project, 'active.json'), 'utf8')) as ActivePointer;
      const dbPath = join(project, 'data', 'app.db');
      const fencesDir = join(dataDir, 'runtime-fences');
      const writers = writerMonitor('prj_b');
      try {
        const first = await startProvider(dataDir, { ...env, SVC_SUPERVISOR_LEASE_MS: String(LEASE_MS), SVC_PROVIDER_FAILPOINT: 'stop:after-health@rel_2' });
        providers.push(first);
        await client(first).reconcile(reconcileRequest('prj_b', 1, artifacts.healthy!));
        const gen1 = pointer();
        expect(gen1).toMatchObject({ generation: 1, releaseId: 'rel_1' });
        expect(columns(dbPath)).not.toContain('done');

        // Generation 2: the provider freezes after the candidate is healthy (migration 0002 applied), before the switch.
        const aborter = new AbortController();
        const pending = client(first)
          .reconcile(reconcileRequest('prj_b', 2, artifacts['healthy-v2']!, aborter.signal))
          .catch((error: unknown) => error);
        await waitFor(() => isStopped(first.child.pid!), 30_000, 'provider frozen at the failpoint').catch((error: unknown) =>
          Promise.reject(new Error(`${String(error)}\n--- provider ---\n${first.output()}`)),
        );
        expect(columns(dbPath)).toContain('done');
        const [candidateFence] = listFences(fencesDir, 'prj_b').map((s) => s.fence!);
        expect(candidateFence).toMatchObject({ releaseId: 'rel_2' });
        const leaseEnd = candidateFence!.lease.expiresAt;

        // A new provider on the same durable state: it may only serve once the old lease ran out.
        const second = await startProvider(dataDir, { ...env, SVC_SUPERVISOR_LEASE_MS: String(LEASE_MS) });
        providers.push(second);
        expect(second.listeningAt).toBeGreaterThanOrEqual(leaseEnd);
        expect(candidateFence!.runtime!.kind).toBe(kind);
        expect(await runtimeAlive(candidateFence!.runtime)).toBe(false);
        // The unswitched deploy was undone: database back at generation 1's schema, generation 1 serving again.
        expect(existsSync(join(project, 'deploy-in-flight.json'))).toBe(false);
        expect(columns(dbPath)).not.toContain('done');
        expect(pointer()).toMatchObject({ generation: 1, releaseId: 'rel_1', host: gen1.host, port: gen1.port });
        expect(await version(pointer())).toBe(1);
        aborter.abort();
        await pending;

        // The coordinator retries operation 2 against the new provider: it converges.
        await client(second).reconcile(reconcileRequest('prj_b', 2, artifacts['healthy-v2']!));
        expect(pointer()).toMatchObject({ generation: 2, releaseId: 'rel_2', previousReleaseId: 'rel_1' });
        expect(await version(pointer())).toBe(2);
        expect(columns(dbPath)).toContain('done');

        // Provider and supervisor both die abruptly: the app is orphaned, its fence stays.
        const [fence2] = listFences(fencesDir, 'prj_b').map((s) => s.fence!);
        const orphan = fence2!.runtime!;
        second.child.kill('SIGKILL');
        process.kill(fence2!.supervisor.pid, 'SIGKILL');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await runtimeAlive(orphan)).toBe(true);
        const third = await startProvider(dataDir, { ...env, SVC_SUPERVISOR_LEASE_MS: String(LEASE_MS) });
        providers.push(third);
        expect(third.listeningAt).toBeGreaterThanOrEqual(fence2!.lease.expiresAt);
        expect(await runtimeAlive(orphan)).toBe(false);
        expect(await version(pointer())).toBe(2);
        expect(pointer()).toMatchObject({ generation: 2, releaseId: 'rel_2' });
        const fences = listFences(fencesDir, 'prj_b').map((s) => s.fence!);
        expect(fences).toHaveLength(1);
        expect(fences[0]!.runId).not.toBe(fence2!.runId);
        expect(appPids('prj_b')).toHaveLength(1);
      } finally {
        writers.stop();
      }
      expect(writers.max()).toBe(1);
    },
    120_000,
  );
});
