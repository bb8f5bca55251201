// The swarm driver's only door to Docker: Engine API v1.41 over dockerode, every answer parsed with
// zod (engine-schemas.ts) before svc reads it, every failure an SvcError (engine-errors.ts). Images
// are local (imported from a tarball), so nothing here talks to a registry or sends registry auth.
import Docker from 'dockerode';
import type { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import type { EngineLabels, EngineServiceSpec } from './engine-spec.js';
import { engineError, engineStatus } from './engine-errors.js';
import { demultiplexLogs, LogFrameReader } from './engine-log-frames.js';
import { parseLogFrame, type ServiceLogRecord } from './service-log-records.js';
import {
  engineCreatedSchema,
  engineImageSchema,
  engineImageSummarySchema,
  engineInfoSchema,
  engineNetworkSchema,
  engineVersionSchema,
  engineVolumeListSchema,
  swarmNodeSchema,
  swarmSecretSchema,
  swarmServiceDetailSchema,
  swarmTaskListSchema,
  type SwarmServiceDetail,
  type SwarmTask,
  type SwarmTaskState,
  type SwarmUpdateStatus,
} from './engine-schemas.js';

export interface SwarmNodeInfo {
  id: string;
  /** The address the node advertises (`Status.Addr`): where host-mode published ports answer. */
  address: string;
  hostname: string;
  role: 'manager' | 'worker';
  state: 'unknown' | 'down' | 'ready' | 'disconnected';
  availability: 'active' | 'pause' | 'drain';
  labels: EngineLabels;
}

export interface SwarmServiceInfo {
  id: string;
  /** `Version.Index`: an update must name the version it read. */
  version: number;
  spec: SwarmServiceDetail['Spec'];
  updateStatus?: SwarmUpdateStatus;
  previousSpec?: SwarmServiceDetail['PreviousSpec'];
}

export interface SwarmSecretInfo {
  id: string;
  name: string;
  labels: EngineLabels;
}

/** Removals are idempotent: removing what does not exist resolves. */
export interface EngineClient {
  version(): Promise<{ version: string; apiVersion: string }>;
  swarmNodes(): Promise<SwarmNodeInfo[]>;
  /** The swarm node whose engine answers (its containers are the only ones this client can signal). */
  localNodeId(): Promise<string | null>;
  /** Send a signal to a container on the local node; one that is gone or stopped resolves. */
  signalContainer(id: string, signal: string): Promise<void>;
  /** A swarm overlay network, neither attachable nor internal (tasks reach the release endpoint through its gateway). */
  createNetwork(network: { name: string; labels: EngineLabels }): Promise<string>;
  removeNetwork(name: string): Promise<void>;
  hasNetwork(name: string): Promise<boolean>;
  createSecret(secret: { name: string; labels: EngineLabels; data: Buffer }): Promise<string>;
  removeSecret(id: string): Promise<void>;
  listSecrets(labels: EngineLabels): Promise<SwarmSecretInfo[]>;
  createService(spec: EngineServiceSpec): Promise<string>;
  inspectService(idOrName: string): Promise<SwarmServiceInfo | null>;
  /** `rollback`: the engine returns the service to its previous spec (`spec` is then ignored by the engine). */
  updateService(id: string, version: number, spec: EngineServiceSpec, options?: { rollback?: boolean }): Promise<void>;
  removeService(id: string): Promise<void>;
  listServices(labels: EngineLabels): Promise<SwarmServiceInfo[]>;
  listTasks(filter: { service?: string; labels?: EngineLabels; desiredState?: SwarmTaskState }): Promise<SwarmTask[]>;
  /** The last `tail` lines of stdout and stderr of every task of the service, demultiplexed. */
  serviceLogs(id: string, options: { tail: number }): Promise<string>;
  /**
   * Every task's lines with their time and task, in batches as they arrive. `since` (the engine's
   * `<seconds>.<nanoseconds>`, inclusive) or `tail` bound where it starts; `follow` keeps streaming,
   * tasks started later included, until `signal` aborts or the engine ends the stream.
   */
  serviceLogLines(id: string, options: { follow: boolean; since?: string; tail?: number; signal?: AbortSignal }): AsyncIterable<ServiceLogRecord[]>;
  listVolumes(labels: EngineLabels): Promise<Array<{ name: string; labels: EngineLabels }>>;
  removeVolume(name: string, options: { force: boolean }): Promise<void>;
  /** `POST /images/create?fromSrc=-`: a root filesystem tarball as an image; returns `sha256:<hex>`. */
  importImage(tarPath: string, options: { repository: string; tag: string; changes: string[] }): Promise<string>;
  inspectImage(ref: string): Promise<{ id: string } | null>;
  /** Local images carrying every label, newest first. */
  findImages(labels: EngineLabels): Promise<Array<{ id: string; labels: EngineLabels }>>;
}

/** dockerode's connection options for `unix:///path` or `tcp://host:port` (plain HTTP). */
export function dockerOptions(dockerHost: string): Docker.DockerOptions {
  const url = new URL(dockerHost);
  if (url.protocol === 'unix:') return { socketPath: url.pathname, version: 'v1.41' };
  if (url.protocol === 'tcp:' || url.protocol === 'http:') return { host: url.hostname, port: Number(url.port || 2375), protocol: 'http', version: 'v1.41' };
  throw new SvcError('SVC_RUNNER_CONFIG', `Unsupported Docker host ${dockerHost}: use unix:///path/to/docker.sock or tcp://host:port`);
}

/** The Engine's `filters` query value for a label match (every pair must match). */
const labelFilter = (labels: EngineLabels): string[] => Object.entries(labels).map(([key, value]) => `${key}=${value}`);

function parse<S extends z.ZodType>(operation: string, schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new SvcError('SVC_SWARM_REQUEST_FAILED', `${operation}: unexpected answer from the engine: ${result.error.message.slice(0, 300)}`, {
      details: { operation },
    });
  return result.data;
}

const serviceInfo = (service: SwarmServiceDetail): SwarmServiceInfo => ({
  id: service.ID,
  version: service.Version.Index,
  spec: service.Spec,
  ...(service.UpdateStatus ? { updateStatus: service.UpdateStatus } : {}),
  ...(service.PreviousSpec ? { previousSpec: service.PreviousSpec } : {}),
});

export function createEngineClient({ dockerHost }: { dockerHost: string }): EngineClient {
  const docker = new Docker(dockerOptions(dockerHost));

  /** Run one call, turning every failure into an SvcError. */
  async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw engineError(operation, error);
    }
  }
  /** Like call(), but a 404 resolves with `missing`. */
  async function callOr<T, M>(operation: string, missing: M, run: () => Promise<T>): Promise<T | M> {
    try {
      return await run();
    } catch (error) {
      if (engineStatus(error) === 404) return missing;
      throw engineError(operation, error);
    }
  }

  return {
    async version() {
      const answer = parse('version', engineVersionSchema, await call('version', () => docker.version()));
      return { version: answer.Version, apiVersion: answer.ApiVersion };
    },

    async swarmNodes() {
      const nodes = await call('list nodes', () => docker.listNodes());
      return parse('list nodes', swarmNodeSchema.array(), nodes).map((node) => ({
        id: node.ID,
        address: node.Status.Addr ?? '',
        hostname: node.Description?.Hostname ?? '',
        role: node.Spec.Role,
        state: node.Status.State,
        availability: node.Spec.Availability,
        labels: node.Spec.Labels,
      }));
    },

    async localNodeId() {
      const info = parse('info', engineInfoSchema, await call('info', () => docker.info()));
      return info.Swarm?.NodeID || null;
    },
    async signalContainer(id, signal) {
      const op = `signal container ${id}`;
      try {
        await docker.getContainer(id).kill({ signal });
      } catch (error) {
        if (engineStatus(error) === 404 || engineStatus(error) === 409) return;
        throw engineError(op, error);
      }
    },

    async createNetwork({ name, labels }) {
      const op = `create network ${name}`;
      const network = await call(op, () =>
        docker.createNetwork({ Name: name, Driver: 'overlay', Attachable: false, Internal: false, CheckDuplicate: true, Labels: labels }),
      );
      return network.id;
    },
    async removeNetwork(name) {
      await callOr(`remove network ${name}`, undefined, () => docker.getNetwork(name).remove());
    },
    async hasNetwork(name) {
      // The name filter matches substrings; only an exact name counts.
      const networks = await call(`find network ${name}`, () => docker.listNetworks({ filters: { name: [name] } }));
      return parse(`find network ${name}`, engineNetworkSchema.array(), networks).some((network) => network.Name === name);
    },

    async createSecret({ name, labels, data }) {
      const secret = await call(`create secret ${name}`, () => docker.createSecret({ Name: name, Labels: labels, Data: data.toString('base64') }));
      return secret.id;
    },
    async removeSecret(id) {
      await callOr(`remove secret ${id}`, undefined, () => docker.getSecret(id).remove());
    },
    async listSecrets(labels) {
      const secrets = await call('list secrets', () => docker.listSecrets({ filters: { label: labelFilter(labels) } }));
      return parse('list secrets', swarmSecretSchema.array(), secrets).map((secret) => ({ id: secret.ID, name: secret.Spec.Name, labels: secret.Spec.Labels }));
    },

    async createService(spec) {
      // No auth argument: dockerode then sends no X-Registry-Auth, and the engine resolves no registry.
      const service = await call(`create service ${spec.Name}`, () => docker.createService(spec as unknown as Docker.CreateServiceOptions));
      return parse(`create service ${spec.Name}`, engineCreatedSchema, { ID: service.id }).ID;
    },
    async inspectService(idOrName) {
      const answer = await callOr(`inspect service ${idOrName}`, null, () => docker.getService(idOrName).inspect());
      return answer === null ? null : serviceInfo(parse(`inspect service ${idOrName}`, swarmServiceDetailSchema, answer));
    },
    async updateService(id, version, spec, options = {}) {
      const query = { version, ...(options.rollback ? { rollback: 'previous' } : {}) };
      // docker-modem sends `_query` as the query string and `_body` as the JSON body.
      await call(`update service ${id}`, () => docker.getService(id).update({ _query: query, _body: spec } as never));
    },
    async removeService(id) {
      await callOr(`remove service ${id}`, undefined, () => docker.getService(id).remove());
    },
    async listServices(labels) {
      const services = await call('list services', () => docker.listServices({ filters: { label: labelFilter(labels) } }));
      return parse('list services', swarmServiceDetailSchema.array(), services).map(serviceInfo);
    },

    async listTasks({ service, labels, desiredState }) {
      const filters = {
        ...(service ? { service: [service] } : {}),
        ...(labels ? { label: labelFilter(labels) } : {}),
        ...(desiredState ? { 'desired-state': [desiredState] } : {}),
      };
      return parse('list tasks', swarmTaskListSchema, await call('list tasks', () => docker.listTasks({ filters })));
    },
    async serviceLogs(id, { tail }) {
      const answer: unknown = await call(`logs of service ${id}`, () => docker.getService(id).logs({ stdout: true, stderr: true, follow: false, tail }));
      // docker-modem hands back a Buffer, or parsed JSON when the whole log happens to be JSON text.
      return Buffer.isBuffer(answer) ? demultiplexLogs(answer) : typeof answer === 'string' ? answer : JSON.stringify(answer);
    },

    async *serviceLogLines(id, { follow, since, tail, signal }) {
      const op = `logs of service ${id}`;
      const query = {
        stdout: true,
        stderr: true,
        timestamps: true,
        details: true,
        follow,
        ...(since === undefined ? {} : { since }),
        ...(tail === undefined ? {} : { tail }),
        ...(signal ? { abortSignal: signal } : {}),
      };
      const service = docker.getService(id);
      const answer: unknown = await call(op, () => service.logs(query as never) as unknown as Promise<unknown>);
      const reader = new LogFrameReader();
      if (Buffer.isBuffer(answer)) {
        yield reader.push(answer).flatMap((frame) => parseLogFrame(frame, Date.now()));
        return;
      }
      if (typeof answer === 'string') {
        yield reader.push(Buffer.from(answer)).flatMap((frame) => parseLogFrame(frame, Date.now()));
        return;
      }
      const stream = answer as NodeJS.ReadableStream & { destroy?: () => void };
      try {
        for await (const chunk of stream as AsyncIterable<Buffer | string>) {
          const records = reader.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)).flatMap((frame) => parseLogFrame(frame, Date.now()));
          if (records.length > 0) yield records;
        }
      } catch (error) {
        if (!signal?.aborted) throw engineError(op, error);
      } finally {
        stream.destroy?.();
      }
    },

    async listVolumes(labels) {
      const answer = await call('list volumes', () => docker.listVolumes({ filters: { label: labelFilter(labels) } }));
      return parse('list volumes', engineVolumeListSchema, answer).Volumes.map((volume) => ({ name: volume.Name, labels: volume.Labels }));
    },
    async removeVolume(name, { force }) {
      await callOr(`remove volume ${name}`, undefined, () => docker.getVolume(name).remove({ force }));
    },

    async importImage(tarPath, { repository, tag, changes }) {
      const op = `import image ${repository}:${tag}`;
      const events = await call(op, async () => {
        const stream = await docker.importImage(tarPath, { repo: repository, tag, changes });
        return new Promise<Array<{ status?: string; error?: string }>>((resolve, reject) =>
          docker.modem.followProgress(stream, (error: Error | null, output: Array<{ status?: string; error?: string }>) =>
            error ? reject(error) : resolve(output),
          ),
        );
      });
      const failure = events.find((event) => event.error);
      if (failure) throw new SvcError('SVC_SWARM_REQUEST_FAILED', `${op}: ${failure.error}`, { details: { operation: op } });
      const id = [...events].reverse().find((event) => /^sha256:[0-9a-f]{64}$/.test(event.status ?? ''))?.status;
      if (!id) throw new SvcError('SVC_SWARM_REQUEST_FAILED', `${op}: the engine answered no image id`, { details: { operation: op } });
      return id;
    },
    async inspectImage(ref) {
      const answer = await callOr(`inspect image ${ref}`, null, () => docker.getImage(ref).inspect());
      return answer === null ? null : { id: parse(`inspect image ${ref}`, engineImageSchema, answer).Id };
    },
    async findImages(labels) {
      const answer = await call('list images', () => docker.listImages({ filters: { label: labelFilter(labels) } }));
      return parse('list images', engineImageSummarySchema.array(), answer)
        .sort((a, b) => (b.Created ?? 0) - (a.Created ?? 0))
        .map((image) => ({ id: image.Id, labels: image.Labels }));
    },
  };
}
