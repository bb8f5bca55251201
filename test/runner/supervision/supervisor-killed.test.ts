// Fault test: a supervisor is killed -9 while its controller lives. The controller ends the orphaned
// app itself (verified) before it reports the exit, so the next deploy never runs beside it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { listFences } from '../../../runner/supervision/fence-file.js';
import { processGroupAlive } from '../../../runner/supervision/runtime-probe.js';
import { packedFixture } from '../provider/provider-helpers.js';
import { openInProcessProvider, type InProcessProvider } from './in-process-provider.js';
import { appPids, reconcileRequest, waitFor, writerMonitor } from './supervision-helpers.js';

let dir: string;
let node: InProcessProvider;
let healthy: ProviderArtifact;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-supervisor-killed-'));
  healthy = await packedFixture('healthy');
  node = openInProcessProvider(dir);
}, 60_000);
afterAll(async () => {
  await node.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

describe('supervisor killed with -9', () => {
  it('the controller kills the orphaned app group, clears the fence, and the next deploy runs alone', async () => {
    const writers = writerMonitor('prj_s');
    try {
      await node.provider.reconcile(reconcileRequest('prj_s', 1, healthy));
      const [stored] = listFences(node.fencesDir, 'prj_s');
      const fence = stored!.fence!;
      const pgid = fence.runtime!.kind === 'process' ? fence.runtime!.pgid : 0;
      process.kill(fence.supervisor.pid, 'SIGKILL');
      await waitFor(() => !processGroupAlive(pgid), 10_000, 'orphaned app killed by the controller');
      await waitFor(() => !existsSync(stored!.path), 5000, 'fence removed');

      // The same release again (its app is gone): it starts once, alone.
      await node.provider.reconcile(reconcileRequest('prj_s', 2, healthy));
      expect(node.local.active('prj_s')).toMatchObject({ generation: 2, releaseId: 'rel_2' });
      expect(appPids('prj_s')).toHaveLength(1);
    } finally {
      writers.stop();
    }
    expect(writers.max()).toBe(1);
  }, 60_000);
});
