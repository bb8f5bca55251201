// The swarm driver as the composition root opens it: settings from the environment (invalid ones
// fail here, at start-up), the container limits (SVC_CONTAINER_*, as podman's), the engine client,
// the log store, and the base image (the one built from the same inputs, or built at start-up) when
// SVC_SWARM_IMAGE does not pin one.
// Reachability is checked when the driver first works (boot recovery), which also stops start-up
// with a stable code.
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { defaultContainerLimits } from '../container/podman-args.js';
import { LogStore } from '../log-store.js';
import type { ReleaseDriverHooks } from '../release-driver.js';
import { buildSwarmImage } from './build-swarm-image.js';
import { createEngineClient } from './engine-client.js';
import type { LocatePath } from './swarm-jobs.js';
import { SwarmReleaseDriver } from './swarm-release-driver.js';
import { readSwarmSettings } from './swarm-settings.js';
import { readRunnerSettings } from '../runner-settings.js';

export interface OpenSwarmReleaseDriverOptions extends ReleaseDriverHooks {
  /** The control plane's data directory (logs and the driver's own files live under it). */
  dataDir: string;
  locate: LocatePath;
  releaseDirOf: (projectId: string, releaseId: string) => string;
  clock?: Clock;
}

/** The swarm driver over DOCKER_HOST and the SVC_SWARM_* settings (throws SVC_SWARM_CONFIG). */
export function openSwarmReleaseDriver(env: Readonly<Record<string, string | undefined>>, options: OpenSwarmReleaseDriverOptions): SwarmReleaseDriver {
  const settings = readSwarmSettings(env);
  // Tasks get the podman runner's limits, SVC_CONTAINER_* included.
  const limits = { ...defaultContainerLimits, ...readRunnerSettings(env).limits };
  const logs = new LogStore({ dir: join(options.dataDir, 'logs'), ...(options.clock ? { clock: options.clock } : {}) });
  return new SwarmReleaseDriver({
    resolveSpec: options.resolveSpec,
    onEvent: options.onEvent,
    settings,
    limits,
    engine: createEngineClient({ dockerHost: settings.dockerHost }),
    logs,
    stateDir: join(options.dataDir, 'swarm'),
    locate: options.locate,
    releaseDirOf: options.releaseDirOf,
    buildImage: async (engine) => (await buildSwarmImage(engine)).imageId,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
