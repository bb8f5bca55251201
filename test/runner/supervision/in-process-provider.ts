// An in-process local provider whose apps run beneath real supervisor processes, fenced like
// `svc-runner provider`, with a failpoint tests arm to inject failures at named deploy steps.
import { join } from 'node:path';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { fencedProvider } from '../../../runner/provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider, type LocalProviderFailpoint } from '../../../runner/provider/local-provider.js';
import type { DeploymentProvider } from '../../../runner/provider/provider-contract.js';
import { FenceRecovery } from '../../../runner/supervision/recover-fences.js';
import { SupervisedRunner } from '../../../runner/supervision/supervised-runner.js';

export interface InProcessProvider {
  provider: DeploymentProvider;
  local: LocalProvider;
  recovery: FenceRecovery;
  fencesDir: string;
  /** Throw once at `name` for `releaseId`. */
  arm(name: LocalProviderFailpoint, releaseId: string): void;
  close(): Promise<void>;
}

/** Open a supervised, fenced local provider under `root`. */
export function openInProcessProvider(root: string, holder = 'test-controller'): InProcessProvider {
  const fencesDir = join(root, 'runtime-fences');
  const runner = new SupervisedRunner({ runner: { kind: 'process', runsDir: join(root, 'runs'), logsDir: join(root, 'logs'), stopGraceMs: 2000 }, fencesDir, holder, leaseMs: 10_000 });
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
  const fences = new FenceStore(join(root, 'fences.db'));
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
