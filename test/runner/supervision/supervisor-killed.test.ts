// Fault test: a supervisor is killed -9 while its controller lives. The controller ends the orphaned
// app itself (verified: a process group, or a sandbox's init and launcher) before it reports the exit,
// so the next deploy never runs beside it.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { runtimeAlive } from '../../../runner/supervision/runtime-probe.js';
import { requireComponents } from '../../support/require-components.js';
import { packedFixture } from '../provider/provider-helpers.js';
import { openInProcessProvider, type InProcessProvider } from './in-process-provider.js';
import { appPids, fenceOrderMonitor, passableTempDir, reconcileRequest, sandboxComponents, waitFor, writerMonitor } from './supervision-helpers.js';

let dir: string;
let healthy: ProviderArtifact;
const sandboxGate = requireComponents('supervised sandbox (supervisor killed)', sandboxComponents);

beforeAll(async () => {
  dir = await passableTempDir('svc-supervisor-killed-');
  healthy = await packedFixture('healthy');
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

describe.each([
  { kind: 'process' as const, skip: false, what: 'app group' },
  { kind: 'sandbox' as const, skip: sandboxGate.skip, what: 'sandbox' },
])('supervisor killed with -9 ($kind runner)', ({ kind, skip, what }) => {
  let node: InProcessProvider;
  beforeAll(() => {
    if (kind === 'sandbox') sandboxGate.assertPresent();
    node = openInProcessProvider(join(dir, kind), 'test-controller', kind);
  });
  afterAll(() => node?.close(), 30_000);

  it.skipIf(skip)(
    `the controller kills the orphaned ${what}, clears the fence only after, and the next deploy runs alone`,
    async () => {
      const project = `prj_${kind}`;
      const writers = writerMonitor(project);
      try {
        await node.provider.reconcile(reconcileRequest(project, 1, healthy));
        const [stored] = listFences(node.fencesDir, project);
        const fence = stored!.fence!;
        const runtime = fence.runtime!;
        expect(runtime.kind).toBe(kind);
        expect(await runtimeAlive(runtime)).toBe(true);
        const order = fenceOrderMonitor(stored!.path, runtime);
        process.kill(fence.supervisor.pid, 'SIGKILL');
        try {
          await waitFor(async () => (await runtimeAlive(runtime)) === false, 10_000, 'orphaned app killed by the controller');
          await waitFor(() => !existsSync(stored!.path), 5000, 'fence removed');
        } finally {
          await order.stop();
        }
        expect(order.violations()).toBe(0);

        // The same release again (its app is gone): it starts once, alone.
        await node.provider.reconcile(reconcileRequest(project, 2, healthy));
        expect(node.local.active(project)).toMatchObject({ generation: 2, releaseId: 'rel_2' });
        expect(appPids(project)).toHaveLength(1);
      } finally {
        writers.stop();
      }
      expect(writers.max()).toBe(1);
    },
    60_000,
  );
});
