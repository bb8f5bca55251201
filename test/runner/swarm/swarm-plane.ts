// A real swarm (dockerd in its own network namespace) with a real control plane driving it through
// the swarm driver: the set-up and tear-down the swarm suites share, so each one states only what
// it does differently (workers, the base image, a fixed endpoint port, the lame-duck window).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSwarmImage } from '../../../runner/swarm/build-swarm-image.js';
import { createEngineClient, type EngineClient } from '../../../runner/swarm/engine-client.js';
import { freePort } from '../../support/free-port.js';
import { startSwarmEngine, type SwarmEngine } from '../../support/swarm-engine.js';
import { removeDataDir, startPlane, type Plane } from '../../releases/release-support.js';

export interface SwarmPlaneOptions {
  /** Prefix of the temp work directory the suite packs its artifacts in. */
  workPrefix: string;
  /** Workers to join besides the manager (default 0). */
  workers?: number;
  /** Build the base image on the manager and name it in SVC_SWARM_IMAGE (otherwise the driver builds it). */
  buildImage: boolean;
  /**
   * A fixed endpoint port, so a restarted control plane serves the URL the tasks' specs carry;
   * otherwise port 0 and the driver picks one.
   */
  fixedEndpoint: boolean;
  drainMs: number;
  /** Runs once the engine is up, before the image is built and the control plane starts. */
  prepare?: (engine: SwarmEngine, client: EngineClient) => Promise<void>;
}

export interface SwarmPlane {
  engine: SwarmEngine;
  client: EngineClient;
  plane: Plane;
  work: string;
  /** The settings the control plane runs with; pass them again to restart it. */
  env: Record<string, string>;
  /** The base image's id when `buildImage` was set, else ''. */
  image: string;
}

export async function startSwarmPlane(options: SwarmPlaneOptions): Promise<SwarmPlane> {
  const work = await mkdtemp(join(tmpdir(), options.workPrefix));
  let engine: SwarmEngine | undefined;
  try {
    engine = await startSwarmEngine({ workers: options.workers ?? 0 });
    const client = createEngineClient({ dockerHost: engine.dockerHost });
    await options.prepare?.(engine, client);
    const image = options.buildImage ? (await buildSwarmImage(client)).imageId : '';
    const port = options.fixedEndpoint ? await freePort(engine.hostAddress) : 0;
    const env: Record<string, string> = {
      SVC_DRIVER: 'swarm',
      DOCKER_HOST: engine.dockerHost,
      SVC_SWARM_ENDPOINT: `http://${engine.hostAddress}:${port}`,
      ...(image ? { SVC_SWARM_IMAGE: image } : {}),
      SVC_SWARM_DRAIN_MS: String(options.drainMs),
    };
    const plane = await startPlane({ env });
    return { engine, client, plane, work, env, image };
  } catch (error) {
    // The suite never sees the parts, so its tear-down cannot stop them.
    await stopSwarmPlane({ engine, work });
    throw error;
  }
}

/** Tears down what started, in order; any part may be missing when the set-up failed half way. */
export async function stopSwarmPlane(parts: { plane?: Plane; engine?: SwarmEngine; work?: string }): Promise<void> {
  await parts.plane?.close();
  await parts.engine?.stop();
  if (parts.plane) await removeDataDir(parts.plane.dataDir);
  if (parts.work) await removeDataDir(parts.work);
}
