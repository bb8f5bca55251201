// The provider a runner node uses when no bridge is configured, and the one `svc-runner provider`
// serves: the local provider over the selected app runner, fenced by a durable per-project store.
import { join, resolve } from 'node:path';
import { selectAppRunner } from './container/select-runner.js';
import { LogStore } from './log-store.js';
import { FenceStore } from './provider/fence-store.js';
import { fencedProvider } from './provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider } from './provider/local-provider.js';
import type { DeploymentProvider } from './provider/provider-contract.js';

/** A fenced local provider plus its parts, with one close for shutdown (drain). */
export interface LocalNodeProvider {
  provider: DeploymentProvider;
  local: LocalProvider;
  fences: FenceStore;
  /** Stop every app, then close the fence store. */
  close(): Promise<void>;
}

/** Open the fenced local provider under `dataDir` (releases, project data, logs, fence database). */
export function openLocalNodeProvider(dataDirSetting: string, env: Readonly<Record<string, string | undefined>>): LocalNodeProvider {
  const dataDir = resolve(dataDirSetting);
  const logs = new LogStore({ dir: join(dataDir, 'logs') });
  const local = createLocalProvider({ runner: selectAppRunner(env, { runsDir: join(dataDir, 'runs'), logs }), rootDir: join(dataDir, 'projects') });
  const fences = new FenceStore(join(dataDir, 'fences.db'));
  return {
    provider: fencedProvider(local, fences),
    local,
    fences,
    async close() {
      await local.close();
      fences.close();
    },
  };
}
