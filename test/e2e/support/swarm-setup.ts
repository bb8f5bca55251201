// A throwaway swarm for end-to-end tests of the control plane under SVC_DRIVER=swarm: the engine
// (optionally with workers), the base image built once and shared to every node (so each control
// plane start pins it instead of building it again), a fixed release endpoint port (tasks swarm
// restarts after a control-plane restart fetch from the URL in their spec), and what svc left in the
// swarm for one project, to check that nothing is orphaned.
import { request as httpRequest } from 'node:http';
import { command } from '../../../src/core/command.js';
import { execChecked } from '../../../src/core/exec.js';
import { buildSwarmImage } from '../../../runner/swarm/build-swarm-image.js';
import { createEngineClient, type EngineClient } from '../../../runner/swarm/engine-client.js';
import type { SwarmTask } from '../../../runner/swarm/engine-schemas.js';
import { specGeneration } from '../../../runner/swarm/service-control.js';
import { SWARM_LABELS, swarmServiceName } from '../../../runner/swarm/swarm-names.js';
import { isServing, publishedPort, taskGeneration } from '../../../runner/swarm/task-observation.js';
import { freePort } from '../../support/free-port.js';
import { startSwarmEngine, type SwarmEngine } from '../../support/swarm-engine.js';

export interface SwarmSetup {
  engine: SwarmEngine;
  client: EngineClient;
  /** The base image (`sha256:<hex>`), on every node. */
  image: string;
  /** The control plane's environment for this swarm. */
  env: Record<string, string>;
  /** Seconds the image build took. */
  imageSeconds: number;
  stop(): Promise<void>;
}

/** Start a swarm, build the base image on the manager, copy it to the workers. */
export async function startSwarmSetup(options: { workers?: number; drainMs?: number } = {}): Promise<SwarmSetup> {
  const engine = await startSwarmEngine({ workers: options.workers ?? 0 });
  try {
    const client = createEngineClient({ dockerHost: engine.dockerHost });
    const started = Date.now();
    const { imageId } = await buildSwarmImage(client);
    await engine.shareImage(imageId);
    const env = {
      SVC_DRIVER: 'swarm',
      DOCKER_HOST: engine.dockerHost,
      SVC_SWARM_ENDPOINT: `http://${engine.hostAddress}:${await freePort(engine.hostAddress)}`,
      SVC_SWARM_IMAGE: imageId,
      SVC_SWARM_DRAIN_MS: String(options.drainMs ?? 1_000),
    };
    return { engine, client, image: imageId, env, imageSeconds: (Date.now() - started) / 1000, stop: () => engine.stop() };
  } catch (error) {
    await engine.stop();
    throw error;
  }
}

/** One serving task of a project's service. */
export interface ServingTask {
  id: string;
  generation: number | null;
  nodeId: string;
  port: number;
  containerId: string;
}

/** What the swarm holds for one project. */
export interface ProjectInSwarm {
  /** The project's service: the release and generation its spec carries (and the spec a rollback returns to). */
  app: { release: string | null; generation: number | null; previousGeneration: number | null; replicas: number; update: string | null } | null;
  serving: ServingTask[];
  /** Tasks wanted running that do not serve yet (starting, or swarm restarting them). */
  pending: number;
  jobServices: string[];
  canaryServices: string[];
  /** Generations of the project's release secrets (credential, app secrets, platform values). */
  secretGenerations: number[];
  /** Jobs whose secrets exist. */
  jobSecrets: string[];
}

function serving(task: SwarmTask): ServingTask {
  return {
    id: task.ID,
    generation: taskGeneration(task),
    nodeId: task.NodeID ?? '',
    port: publishedPort(task) ?? 0,
    containerId: task.Status.ContainerStatus?.ContainerID ?? '',
  };
}

export async function projectInSwarm(client: EngineClient, projectId: string): Promise<ProjectInSwarm> {
  const byProject = { [SWARM_LABELS.project]: projectId };
  const service = await client.inspectService(swarmServiceName(projectId, 'app'));
  const tasks = service ? await client.listTasks({ service: service.id }) : [];
  const services = await client.listServices(byProject);
  const secrets = await client.listSecrets(byProject);
  const role = (name: string) => services.filter((s) => s.spec.Labels?.[SWARM_LABELS.role] === name).map((s) => s.spec.Name);
  return {
    app: service
      ? {
          release: service.spec.Labels?.[SWARM_LABELS.release] ?? null,
          generation: specGeneration(service.spec),
          previousGeneration: specGeneration(service.previousSpec),
          replicas: (service.spec as { Mode?: { Replicated?: { Replicas?: number } } }).Mode?.Replicated?.Replicas ?? 0,
          update: service.updateStatus ? `${service.updateStatus.State ?? ''}: ${service.updateStatus.Message ?? ''}` : null,
        }
      : null,
    serving: tasks.filter(isServing).map(serving),
    pending: tasks.filter((t) => t.DesiredState === 'running' && !isServing(t)).length,
    jobServices: role('job'),
    canaryServices: role('canary'),
    secretGenerations: [...new Set(secrets.filter((s) => s.labels[SWARM_LABELS.job] === undefined).map((s) => Number(s.labels[SWARM_LABELS.generation])))].sort(
      (a, b) => a - b,
    ),
    jobSecrets: [...new Set(secrets.map((s) => s.labels[SWARM_LABELS.job]).filter((j): j is string => j !== undefined))],
  };
}

/** What should not be there once a project settled: job or canary services, secrets of no generation its service can run. */
export function orphans(state: ProjectInSwarm): string[] {
  const live = new Set([state.app?.generation, state.app?.previousGeneration].filter((g): g is number => typeof g === 'number'));
  return [
    ...state.jobServices.map((name) => `job service ${name}`),
    ...state.canaryServices.map((name) => `canary service ${name}`),
    ...state.secretGenerations.filter((g) => !live.has(g)).map((g) => `secrets of generation ${g}`),
    ...state.jobSecrets.map((job) => `secrets of job ${job}`),
  ];
}

/** GET an Engine API path of one node's daemon (what the client does not wrap: containers, volumes); JSON. */
export function engineGet<T>(socketPath: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    httpRequest({ socketPath, path: `/v1.41${path}` }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as T) : reject(new Error(`GET ${path} → ${res.statusCode}: ${text}`))));
    })
      .on('error', reject)
      .end();
  });
}

/** POST to one node's Engine API (what an operator's `docker kill` does), with an optional JSON body; resolves with the status. */
export function enginePost(socketPath: string, path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    httpRequest({ socketPath, method: 'POST', path: `/v1.41${path}`, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end(payload);
  });
}

/** Set a node's availability (`drain`: swarm schedules nothing new there and moves its tasks away). */
export async function setNodeAvailability(socketPath: string, nodeId: string, availability: 'active' | 'pause' | 'drain'): Promise<void> {
  const node = await engineGet<{ Version: { Index: number }; Spec: Record<string, unknown> }>(socketPath, `/nodes/${nodeId}`);
  const status = await enginePost(socketPath, `/nodes/${nodeId}/update?version=${node.Version.Index}`, { ...node.Spec, Availability: availability });
  if (status !== 200) throw new Error(`updating node ${nodeId} answered ${status}`);
}

/**
 * A task's container: its init pid on the host (dockerd shares our pid namespace) and every IPv4
 * address in its network namespace (the overlay's and the gateway bridge's, which inspect omits).
 */
export async function taskContainer(socketPath: string, containerId: string): Promise<{ pid: number; addresses: string[] }> {
  const c = await engineGet<{ State: { Pid: number } }>(socketPath, `/containers/${containerId}/json`);
  const shown = await execChecked(command('nsenter', [`--net=/proc/${c.State.Pid}/ns/net`, 'ip', '-o', '-4', 'addr', 'show']));
  const addresses = [...shown.stdout.matchAll(/ inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1]!).filter((a) => !a.startsWith('127.'));
  return { pid: c.State.Pid, addresses };
}

/** Where a node keeps a named volume's files on the host. */
export async function volumePath(socketPath: string, name: string): Promise<string> {
  return (await engineGet<{ Mountpoint: string }>(socketPath, `/volumes/${name}`)).Mountpoint;
}
