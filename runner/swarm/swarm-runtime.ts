// What the swarm driver needs before its first operation, set up once at start-up: an engine that
// answers and is a swarm manager with a node apps may go to, the base image (pinned, or found or
// built by its inputs), the credential key, the projects' recorded nodes and the release endpoint
// listening where tasks reach it. Any failure is an SvcError with a stable code: start-up stops, no other driver stands in.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { isSvcError, SvcError } from '../../src/core/errors.js';
import type { EngineClient, SwarmNodeInfo } from './engine-client.js';
import { appNodes } from './node-choice.js';
import { ProjectPlacements } from './project-placement.js';
import { loadCredentialKey, ReleaseAccess } from './release-access.js';
import { buildReleaseEndpoint, type ReleaseEndpointDeps } from './release-endpoint.js';
import type { SwarmSettings } from './swarm-settings.js';
import { SWARM_LABELS } from './swarm-names.js';
import { specGeneration } from './task-observation.js';

export interface SwarmRuntime {
  engine: EngineClient;
  settings: SwarmSettings;
  /** The base image every task runs (`sha256:<hex>`). */
  image: string;
  /** `http://<address>:<bound port>` of the release endpoint. */
  endpointUrl: string;
  access: ReleaseAccess;
  clock: Clock;
  /** Which node holds each project (its volume, tasks and jobs). */
  placements: ProjectPlacements;
  /** Every node, as the engine reports it now. */
  nodes(): Promise<SwarmNodeInfo[]>;
  /** A node by id (refreshed from the engine when unknown). */
  node(id: string): Promise<SwarmNodeInfo>;
  close(): Promise<void>;
}

export interface OpenSwarmRuntimeInput {
  engine: EngineClient;
  settings: SwarmSettings;
  clock: Clock;
  /** Where the driver keeps its own files (the credential key, the projects' nodes). */
  stateDir: string;
  /** Builds the base image when SVC_SWARM_IMAGE is not set; answers its id. */
  buildImage: (engine: EngineClient) => Promise<string>;
  /** What the endpoint serves, given the access rules it checks. */
  endpoint: Omit<ReleaseEndpointDeps, 'credentialKey' | 'clock' | 'isRevoked'>;
}

async function resolveImage(input: OpenSwarmRuntimeInput): Promise<string> {
  const pinned = input.settings.image;
  if (pinned === undefined) return input.buildImage(input.engine);
  const found = await input.engine.inspectImage(pinned);
  if (!found)
    throw new SvcError('SVC_SWARM_CONFIG', `Invalid SVC_SWARM_IMAGE: the engine has no image ${pinned} (unset it to build the base image at start-up)`);
  return pinned;
}

function listen(server: ReturnType<typeof buildReleaseEndpoint>, address: { host: string; port: number }): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void =>
      reject(
        new SvcError('SVC_SWARM_CONFIG', `Invalid SVC_SWARM_ENDPOINT: cannot listen on ${address.host}:${address.port} (${error.code ?? error.message})`, {
          cause: error,
        }),
      );
    server.once('error', fail);
    server.listen(address.port, address.host, () => {
      server.off('error', fail);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * After a control-plane restart, the generations the swarm's services (and their previous specs) carry
 * stay live: boot recovery may roll an interrupted update back before the driver re-adopts, and the
 * rolled-back tasks must still fetch their release. Re-adoption narrows this to what serves.
 */
async function allowRunningGenerations(engine: EngineClient, access: ReleaseAccess): Promise<void> {
  for (const role of ['app', 'canary'] as const) {
    for (const service of await engine.listServices({ [SWARM_LABELS.role]: role })) {
      const projectId = service.spec.Labels?.[SWARM_LABELS.project];
      if (!projectId) continue;
      for (const generation of [specGeneration(service.spec), specGeneration(service.previousSpec)])
        if (generation !== null) access.allow(projectId, generation);
    }
  }
}

/** Check the engine and its nodes, resolve the image, start the endpoint. */
export async function openSwarmRuntime(input: OpenSwarmRuntimeInput): Promise<SwarmRuntime> {
  const { engine, settings, clock } = input;
  let nodes: SwarmNodeInfo[];
  try {
    await engine.version();
    nodes = await engine.swarmNodes();
  } catch (error) {
    if (isSvcError(error, 'SVC_SWARM_UNAVAILABLE'))
      throw new SvcError('SVC_SWARM_UNAVAILABLE', `DOCKER_HOST ${settings.dockerHost}: ${error.message}`, { cause: error });
    throw error;
  }
  if (appNodes(nodes).length === 0)
    throw new SvcError(
      'SVC_SWARM_UNAVAILABLE',
      `DOCKER_HOST ${settings.dockerHost}: the swarm has no ready, active node for apps (labelled svc.apps=true, or a manager) with an address`,
    );
  const image = await resolveImage(input);
  const access = new ReleaseAccess(await loadCredentialKey(join(input.stateDir, 'release-credential.key')), clock);
  await allowRunningGenerations(engine, access);
  const server = buildReleaseEndpoint({ ...input.endpoint, credentialKey: access.credentialKey, clock, isRevoked: (claims) => access.isRevoked(claims) });
  const bound = await listen(server, settings.endpoint);
  const host = bound.family === 'IPv6' ? `[${settings.endpoint.host}]` : settings.endpoint.host;
  const refresh = async (): Promise<SwarmNodeInfo[]> => (nodes = await engine.swarmNodes());
  return {
    engine,
    settings,
    image,
    endpointUrl: `http://${host}:${bound.port}`,
    access,
    clock,
    placements: new ProjectPlacements(join(input.stateDir, 'placements.json')),
    nodes: refresh,
    async node(id) {
      const node = nodes.find((n) => n.id === id) ?? (await refresh()).find((n) => n.id === id);
      if (!node?.address) throw new SvcError('SVC_SWARM_UNAVAILABLE', `Swarm node ${id} (which holds the project's volume) is not in the swarm`);
      return node;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
