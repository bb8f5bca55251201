// Fault test: start-up refuses new writers while a fence is unresolved — a previous
// controller's lease that has not expired (beyond the bounded wait) or an unreadable fence file. Once the
// lease expired, the leftover runtime is killed, verified gone, the fence removed and the writer starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processStartTime } from '../../../src/core/process-identity.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
import { fencePath, writeFence, type FenceFile } from '../../../runner/supervision/fence-file.js';
import { processGroupAlive } from '../../../runner/supervision/runtime-probe.js';
import { packedFixture } from '../provider/provider-helpers.js';
import { openInProcessProvider, type InProcessProvider } from './in-process-provider.js';
import { appPids, reconcileRequest, waitFor } from './supervision-helpers.js';

let dir: string;
let node: InProcessProvider;
let healthy: ProviderArtifact;
let leftover: ChildProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-fence-refusal-'));
  healthy = await packedFixture('healthy');
  node = openInProcessProvider(dir, 'new-controller');
  // A runtime left behind by an earlier controller: its own process group, still running.
  leftover = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  await new Promise((resolve) => leftover.once('spawn', resolve));
}, 60_000);
afterAll(async () => {
  try {
    process.kill(-leftover.pid!, 'SIGKILL');
  } catch {
    // Already gone (the expected outcome).
  }
  await node.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

function leftoverFence(expiresAt: number): FenceFile {
  const pid = leftover.pid!;
  return {
    version: 1,
    projectId: 'prj_d',
    runId: 'run_old',
    releaseId: 'rel_0',
    // The old supervisor is gone (a start time that cannot match any live process).
    supervisor: { pid: 999_999, startTime: '1' },
    runtime: { kind: 'process', pgid: pid, startTime: processStartTime(pid) },
    lease: { holder: 'old-controller', expiresAt },
    updatedAt: Date.now(),
  };
}

describe('unresolved fences refuse writers', () => {
  it('waits at most the bounded time, refuses while the old lease holds, then verifies cleanup and starts', async () => {
    const path = fencePath(node.fencesDir, 'prj_d', 'run_old');
    writeFence(path, leftoverFence(Date.now() + 60_000));

    const began = Date.now();
    expect(await node.recovery.recoverAll(300)).toEqual(['prj_d']);
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect(Date.now() - began).toBeLessThan(5000);
    expect(processGroupAlive(leftover.pid!)).toBe(true); // a valid lease is never broken

    await expect(node.provider.reconcile(reconcileRequest('prj_d', 1, healthy))).rejects.toMatchObject({ code: 'SVC_PROVIDER_FENCE_UNRESOLVED' });
    expect(existsSync(join(dir, 'projects', 'prj_d', 'releases'))).toBe(false); // nothing staged, nothing started
    expect(appPids('prj_d')).toEqual([]);
    expect(existsSync(path)).toBe(true);

    // The old lease runs out: the same operation now kills the leftover, verifies it, clears the fence, deploys.
    writeFence(path, leftoverFence(Date.now() - 1));
    await node.provider.reconcile(reconcileRequest('prj_d', 1, healthy));
    await waitFor(() => !processGroupAlive(leftover.pid!), 5000, 'leftover gone');
    expect(existsSync(path)).toBe(false);
    expect(node.local.active('prj_d')).toMatchObject({ generation: 1, releaseId: 'rel_1' });
    expect(appPids('prj_d')).toHaveLength(1);
  }, 60_000);

  it('an unreadable fence file is never ignored', async () => {
    mkdirSync(join(node.fencesDir, 'prj_e'), { recursive: true });
    writeFileSync(join(node.fencesDir, 'prj_e', 'run_x.fence.json'), '{"version":1,');
    await expect(node.recovery.assertResolved('prj_e')).rejects.toMatchObject({ code: 'SVC_PROVIDER_FENCE_UNRESOLVED' });
    await expect(node.provider.reconcile(reconcileRequest('prj_e', 1, healthy))).rejects.toMatchObject({ code: 'SVC_PROVIDER_FENCE_UNRESOLVED' });
    expect(await node.recovery.recoverAll(0)).toContain('prj_e');
  }, 30_000);
});
