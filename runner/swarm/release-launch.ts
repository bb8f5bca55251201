// Starting one generation of a release as a project's service (or its canary): the start spec the
// pipeline resolved becomes swarm secrets and a service spec (runner/swarm data layer), created or
// applied as a start-first update. Waiting for its tasks is the caller's (task-observation.ts).
import type { AppStartSpec } from '../app-runner.js';
import { defaultContainerLimits, type ContainerLimits } from '../container/podman-args.js';
import { projectNetworkName } from '../container/network-args.js';
import { sandboxLayout, SANDBOX_DATA_DIR } from '../sandbox-layout.js';
import { SvcError } from '../../src/core/errors.js';
import type { EngineClient, SwarmNodeInfo } from './engine-client.js';
import { createGenerationSecrets } from './generation-secrets.js';
import type { KeptArtifacts } from './kept-artifacts.js';
import { releaseServiceSpec } from './service-spec.js';
import { RELEASE_ENDPOINT_PATHS } from './swarm-job-protocol.js';
import { SWARM_LABELS } from './swarm-names.js';
import type { SwarmRuntime } from './swarm-runtime.js';

/** The port every app listens on inside its task (the engine publishes it on a free host port). */
export const TASK_APP_PORT = 3000;
/** Room for the extracted release (a tmpfs, so it counts against the task's memory). */
export const RELEASE_TMPFS_SIZE = '256m';
/** Beyond the lame-duck window: the app's own shutdown after its SIGTERM. */
export const APP_STOP_GRACE_MS = 10_000;

/** The overlay network a project's tasks share (created before its first service). */
export async function ensureProjectNetwork(engine: EngineClient, projectId: string): Promise<void> {
  const name = projectNetworkName(projectId);
  if (await engine.hasNetwork(name)) return;
  await engine.createNetwork({ name, labels: { [SWARM_LABELS.project]: projectId } });
}

/** The node holding a project's volume: its service's, else the recorded or a new choice (project-placement.ts). */
export function projectNode(rt: SwarmRuntime, projectId: string): Promise<SwarmNodeInfo> {
  return rt.placements.nodeOf(rt, projectId);
}

/** The task's view of a start spec: the database inside the volume, platform values rewritten to /data. */
export function taskValues(spec: AppStartSpec): { databaseFile: string; platformEnv: Record<string, string> } {
  if (spec.platformEnv?.SVC_RECOVERY_DIR !== undefined) {
    throw new SvcError(
      'SVC_CONTAINER_INVALID_SPEC',
      'Point-in-time recovery journals on the control plane: it is not available to projects on the swarm driver (turn recovery off for this project).',
    );
  }
  const layout = sandboxLayout(spec);
  return { databaseFile: layout.databasePath.slice(`${SANDBOX_DATA_DIR}/`.length), platformEnv: layout.platformEnv };
}

export interface LaunchRequest {
  spec: AppStartSpec;
  role: 'app' | 'canary';
  generation: number;
  node: SwarmNodeInfo;
  replicas: number;
  limits?: ContainerLimits;
}

/**
 * Create the generation's secrets and its service spec, then create the service or update it in
 * place (start-first; Docker rolls a failing update back). Returns the service name.
 */
export async function launchRelease(rt: SwarmRuntime, artifacts: KeptArtifacts, request: LaunchRequest): Promise<string> {
  const { spec, generation } = request;
  if (!spec.release) throw new SvcError('SVC_INTERNAL', `The start spec of ${spec.releaseId} carries no digest or health route`);
  const kept = await artifacts.require(spec.releaseDir, spec.releaseId);
  if (kept.sha256 !== spec.release.digest)
    throw new SvcError('SVC_INTERNAL', `The kept artifact of ${spec.releaseId} is not the release's (${kept.sha256} ≠ ${spec.release.digest})`);
  const { databaseFile, platformEnv } = taskValues(spec);
  await ensureProjectNetwork(rt.engine, spec.projectId);
  const token = rt.access.mintRelease(spec.projectId, spec.releaseId, generation);
  // Platform values win over an app secret of the same name (the platform controls SVC_*).
  const secrets = await createGenerationSecrets(rt.engine, spec.projectId, generation, { ...spec.secrets, ...platformEnv }, token);
  const drainMs = rt.settings.drainMs;
  const serviceSpec = releaseServiceSpec({
    projectId: spec.projectId,
    releaseId: spec.releaseId,
    generation,
    releaseDigest: kept.sha256,
    image: rt.image,
    artifactUrl: `${rt.endpointUrl}${RELEASE_ENDPOINT_PATHS.artifact(spec.releaseId)}`,
    credential: secrets.credential,
    nodeId: request.node.id,
    databaseFile,
    limits: request.limits ?? defaultContainerLimits,
    releaseTmpfsSize: RELEASE_TMPFS_SIZE,
    stopGraceMs: drainMs + APP_STOP_GRACE_MS,
    drainMs,
    role: request.role,
    entry: spec.entry,
    env: spec.env,
    secrets: secrets.values,
    port: TASK_APP_PORT,
    health: spec.release.health,
    replicas: request.replicas,
  });
  const existing = await rt.engine.inspectService(serviceSpec.Name);
  if (existing) await rt.engine.updateService(existing.id, existing.version, serviceSpec);
  else await rt.engine.createService(serviceSpec);
  return serviceSpec.Name;
}
