// An in-process local provider whose apps run beneath real supervisor processes, fenced like
// `svc-runner provider`, with a failpoint tests arm to inject failures at named deploy steps.
import { join } from 'node:path';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { fencedProvider } from '../../../runner/provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider, type LocalProviderFailpoint } from '../../../runner/provider/local-provider.js';
import type { DeploymentProvider } from '../../../runner/provider/provider-contract.js';
import { FenceRecovery } from '../../../runner/supervision/recover-fences.js';
import { SupervisedRunner } from '../../../runner/supervision/supervised-runner.js';
import type { RunnerConfig } from '../../../runner/supervision/supervisor-protocol.js';
import { nodeRunnerConfig } from '../../../runner/node-runner-config.js';

export interface InProcessProvider {
  provider: DeploymentProvider;
  local: LocalProvider;
  recovery: FenceRecovery;
  fencesDir: string;
  /** Throw once at `name` for `releaseId`. */
  arm(name: LocalProviderFailpoint, releaseId: string): void;
  close(): Promise<void>;
}

/**
 * Open a supervised, fenced local provider under `root`: unsandboxed processes, or (`sandbox`) the node
 * default: sandboxes with uids from the fence database as root. A sandboxed root must be passable by others.
 */
export function openInProcessProvider(root: string, holder = 'test-controller', kind: 'process' | 'sandbox' = 'process'): InProcessProvider {
  const fencesDir = join(root, 'runtime-fences');
  const fences = new FenceStore(join(root, 'fences.db'));
  const config: RunnerConfig =
    kind === 'sandbox'
      ? { ...nodeRunnerConfig({}, root).config, stopGraceMs: 2000 }
      : { kind: 'process', runsDir: join(root, 'runs'), logsDir: join(root, 'logs'), stopGraceMs: 2000 };
  const uidFor = kind === 'sandbox' && process.getuid?.() === 0 ? (projectId: string) => fences.projectUid(projectId, 200_000) : undefined;
  const runner = new SupervisedRunner({ runner: config, fencesDir, holder, leaseMs: 10_000, ...(uidFor ? { uidFor } : {}) });
  const recovery = new FenceRecovery({ fencesDir, holder });
  let armed: { name: LocalProviderFailpoint; releaseId: string } | null = null;
  const local = createLocalProvider({
    runner,
    rootDir: join(root, 'projects'),
    drainMs: 2000,
    gate: (projectId) => recovery.assertResolved(projectId),
    failpoint: (name, releaseId) => {
      if (armed && armed.name === name && armed.releaseId === releaseId) {
        armed = null;
        throw new Error(`injected failure at ${name}`);
      }
    },
  });
  return {
    provider: fencedProvider(local, fences),
    local,
    recovery,
    fencesDir,
    arm: (name, releaseId) => (armed = { name, releaseId }),
    async close() {
      await local.close();
      runner.close();
      fences.close();
    },
  };
}
