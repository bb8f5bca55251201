// What every svc task in a swarm shares, as data: the hardened container (the podman runner's values,
// converted to Engine API units), the release fetched by digest, the project's volume at /data on the
// node that holds it, the project's network, and secrets by reference only. Pure.
import { SvcError } from '../../src/core/errors.js';
import { checkEntry, isReservedEnvName } from '../app-command.js';
import { isProjectNetworkName, projectNetworkName } from '../container/network-args.js';
import { isPassableSecretName, type ContainerLimits } from '../container/podman-args.js';
import { SANDBOX_DATA_DIR, SANDBOX_RELEASE_DIR } from '../sandbox-layout.js';
import type { EngineContainerSpec, EngineLabels, EngineMount, EngineSecretReference, EngineTaskTemplate } from './engine-spec.js';
import { SWARM_LABELS, swarmVolumeName, type SwarmServiceRole } from './swarm-names.js';
import { taskPlatformEnv } from './task-platform-env.js';
import { nanoCpus, nanoseconds, sizeBytes, ulimit } from './swarm-units.js';

/** The entrypoint of the base image: fetches the release by digest, exposes secrets, runs the app or a job. */
export const SWARM_ENTRYPOINT = ['/usr/bin/node', '/svc/swarm-entrypoint.mjs'] as const;
/** Where swarm secret files appear (fixed by Docker); file names tell the entrypoint what each is. */
export const SWARM_CREDENTIAL_FILE = 'svc.credential';
export const SWARM_SECRET_FILE_PREFIX = 'env.';

/** A swarm secret the driver created, by reference; its value is never part of a spec. */
export interface SwarmSecretRef {
  /** Environment variable name the entrypoint exposes the value as (credential: unused). */
  name: string;
  secretId: string;
  secretName: string;
}

/** Everything a task of one release needs; no secret value anywhere. */
export interface SwarmTaskInput {
  projectId: string;
  releaseId: string;
  /** Deploy generation: labels tasks so svc tells the new spec's tasks from the old ones. */
  generation: number;
  /** SHA-256 (lowercase hex) of the release artifact the entrypoint fetches and verifies. */
  releaseDigest: string;
  /** The locally built base image, pinned by digest (`name@sha256:<hex>` or `sha256:<hex>`), never a tag. */
  image: string;
  /** The control plane URL the entrypoint fetches the artifact from (https, or http on loopback). */
  artifactUrl: string;
  /** The short-lived per-release credential for `artifactUrl`, as a swarm secret. */
  credential: SwarmSecretRef;
  /** Swarm node id of the node holding the project's volume. */
  nodeId: string;
  /** The project database inside the data volume, relative (e.g. `db/app.db`). */
  databaseFile: string;
  limits: ContainerLimits;
  /** Size of the tmpfs the entrypoint extracts the release into (the root filesystem stays read-only). */
  releaseTmpfsSize: string;
  stopGraceMs: number;
  /** How long a stopped task keeps serving before its app gets SIGTERM (the entrypoint's SVC_DRAIN_MS); keep it below stopGraceMs. */
  drainMs?: number;
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const digestImage = /^(?:[a-z0-9][a-z0-9._/:-]*@)?sha256:[0-9a-f]{64}$/;
const hexDigest = /^[0-9a-f]{64}$/;
const nodeIdPattern = /^[a-zA-Z0-9]{1,64}$/;
const idPattern = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Loopback and private IP literals (RFC 1918, IPv6 unique local): the only places plain http may
 * carry a task's credential, i.e. a link between the control plane and its swarm nodes.
 */
function privateAddress(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === '::1' || /^f[cd][0-9a-f]{2}:/.test(host)) return true;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)?.slice(1).map(Number);
  if (!octets || octets.some((o) => o > 255)) return false;
  const [a = 0, b = 0] = octets;
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

function invalid(message: string): SvcError {
  return new SvcError('SVC_CONTAINER_INVALID_SPEC', message);
}

function checkInput(input: SwarmTaskInput): void {
  if (!idPattern.test(input.projectId) || !idPattern.test(input.releaseId)) throw invalid('Project and release ids must be letters, digits, _ . -');
  if (!Number.isSafeInteger(input.generation) || input.generation < 1) throw invalid('The generation must be a positive integer');
  if (!hexDigest.test(input.releaseDigest)) throw invalid('The release digest must be a lowercase hex SHA-256');
  if (!digestImage.test(input.image)) throw invalid('Swarm tasks run only an image pinned by digest (name@sha256:… or sha256:…), never a tag');
  if (!nodeIdPattern.test(input.nodeId)) throw invalid('The node id must be a swarm node id');
  const url = new URL(input.artifactUrl);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && privateAddress(url.hostname)))
    throw invalid('The artifact URL must be https (http only on a loopback or private address)');
  if (url.username !== '' || url.password !== '') throw invalid('The artifact URL may not carry credentials');
  if (!/^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9_.\-/]+$/.test(input.databaseFile))
    throw invalid('The database file must be a relative path inside the data volume');
  if (input.drainMs !== undefined && (!Number.isSafeInteger(input.drainMs) || input.drainMs < 0 || input.drainMs >= input.stopGraceMs))
    throw invalid('The drain window must be a whole number of milliseconds below the stop grace period');
  if (/^0(:|$)/.test(input.limits.user) || !/^\d+:\d+$/.test(input.limits.user)) throw invalid('The container user must be a numeric non-root uid:gid');
}

/** Labels on the service and on every task it starts (tasks carry the generation the verdict reads). */
export function swarmLabels(input: SwarmTaskInput, role: SwarmServiceRole): EngineLabels {
  return {
    [SWARM_LABELS.project]: input.projectId,
    [SWARM_LABELS.release]: input.releaseId,
    [SWARM_LABELS.generation]: String(input.generation),
    [SWARM_LABELS.digest]: input.releaseDigest,
    [SWARM_LABELS.role]: role,
  };
}

function secretReference(ref: SwarmSecretRef, file: string, uid: string, gid: string): EngineSecretReference {
  if (!idPattern.test(ref.secretId) || !idPattern.test(ref.secretName)) throw invalid('A swarm secret reference needs its id and name');
  return { SecretID: ref.secretId, SecretName: ref.secretName, File: { Name: file, UID: uid, GID: gid, Mode: 0o400 } };
}

/**
 * The project's volume at /data, /tmp and the release tmpfs at /app (root stays read-only). Measured
 * on dockerd 20.10: a tmpfs or a new volume takes the owner and mode of the image directory it covers
 * (the base image makes /app, /data and /tmp 1777), and a swarm tmpfs mode with the sticky bit
 * (0o1777) is dropped altogether, hence 0o777. The volume copies the image's /data when new (no
 * NoCopy), which is what makes its root writable for the app user.
 */
function mounts(input: SwarmTaskInput): EngineMount[] {
  return [
    {
      Type: 'volume',
      Source: swarmVolumeName(input.projectId),
      Target: SANDBOX_DATA_DIR,
      ReadOnly: false,
      VolumeOptions: { NoCopy: false, Labels: { [SWARM_LABELS.project]: input.projectId } },
    },
    { Type: 'tmpfs', Target: SANDBOX_RELEASE_DIR, TmpfsOptions: { SizeBytes: sizeBytes(input.releaseTmpfsSize), Mode: 0o777 } },
    { Type: 'tmpfs', Target: '/tmp', TmpfsOptions: { SizeBytes: sizeBytes(input.limits.tmpfsSize), Mode: 0o777 } },
  ];
}

export interface TaskExtras {
  role: SwarmServiceRole;
  /** Public env (in the artifact anyway), as NAME=value. */
  env: Readonly<Record<string, string>>;
  /** App secrets and platform SVC_* values, by reference only. */
  secrets: readonly SwarmSecretRef[];
  /** Arguments after the entrypoint (`serve <entry>`, `job <type> …`). */
  args: string[];
  /** The port the app listens on inside the task (0 for jobs). */
  port: number;
  restart: EngineTaskTemplate['RestartPolicy'];
  extraLabels?: EngineLabels;
}

/** The hardened TaskTemplate shared by the app service, the canary and every job. */
export function swarmTaskTemplate(input: SwarmTaskInput, extras: TaskExtras): EngineTaskTemplate {
  checkInput(input);
  const network = projectNetworkName(input.projectId);
  if (!isProjectNetworkName(network)) throw invalid('Tasks join only their project network');
  const [uid = '', gid = ''] = input.limits.user.split(':');
  const env: string[] = [];
  for (const [name, value] of Object.entries(extras.env)) {
    if (!envName.test(name) || isReservedEnvName(name) || name === 'PATH' || name === 'HOME')
      throw new SvcError('SVC_VALIDATION', `env name ${name} is invalid or reserved`);
    env.push(`${name}=${value}`);
  }
  const secretNames = new Set<string>();
  const secrets = [secretReference(input.credential, SWARM_CREDENTIAL_FILE, uid, gid)];
  for (const ref of extras.secrets) {
    const platform = ref.name.startsWith('SVC_') && envName.test(ref.name);
    if (!platform && !isPassableSecretName(ref.name)) throw new SvcError('SVC_VALIDATION', `secret name ${ref.name} is invalid or reserved`);
    if (secretNames.has(ref.name)) throw new SvcError('SVC_VALIDATION', `secret name ${ref.name} is given twice`);
    secretNames.add(ref.name);
    secrets.push(secretReference(ref, `${SWARM_SECRET_FILE_PREFIX}${ref.name}`, uid, gid));
  }
  const platform: Record<string, string> = {
    ...taskPlatformEnv({ ...input, port: extras.port }),
    ...(input.drainMs === undefined ? {} : { SVC_DRAIN_MS: String(input.drainMs) }),
  };
  // The entrypoint exports secrets after the platform values: one may never stand in for another.
  for (const name of secretNames) if (name in platform) throw new SvcError('SVC_VALIDATION', `secret name ${name} is reserved by the platform`);
  const labels = { ...swarmLabels(input, extras.role), ...extras.extraLabels };
  const { limits } = input;
  const container: EngineContainerSpec = {
    Image: input.image,
    Labels: labels,
    Command: [...SWARM_ENTRYPOINT],
    Args: extras.args,
    Env: [...env, ...Object.entries(platform).map(([name, value]) => `${name}=${value}`)],
    Dir: SANDBOX_RELEASE_DIR,
    User: limits.user,
    ReadOnly: true,
    Init: true,
    CapabilityDrop: ['ALL'],
    CapabilityAdd: [],
    Ulimits: limits.ulimits.map(ulimit),
    Mounts: mounts(input),
    Secrets: secrets,
    StopGracePeriod: nanoseconds(input.stopGraceMs),
    StopSignal: 'SIGTERM',
  };
  return {
    ContainerSpec: container,
    Resources: { Limits: { NanoCPUs: nanoCpus(limits.cpus), MemoryBytes: sizeBytes(limits.memory), Pids: limits.pids } },
    RestartPolicy: extras.restart,
    Placement: { Constraints: [`node.id==${input.nodeId}`] },
    Networks: [{ Target: network }],
    ForceUpdate: input.generation,
  };
}

/** The entry argument of `serve`, checked like every runner's. */
export function serveArgs(entry: string): string[] {
  return ['serve', checkEntry(entry)];
}
