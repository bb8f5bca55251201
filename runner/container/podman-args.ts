// Pure argv builders for podman: every hardening flag of spec 000 item 7 lives here, as data.
// Nothing in this file runs anything; tests compare the exact argv.
import { isAbsolute, relative, sep } from 'node:path';
import { command, type Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { checkEntry, isReservedEnvName, isReservedSecretName } from '../app-command.js';
import type { AppStartSpec } from '../app-runner.js';

/** Resource limits and identity applied to every app container. */
export interface ContainerLimits {
  /** Numeric uid:gid the app runs as inside the container (never 0). */
  user: string;
  /** `--memory` value, e.g. `512m`. */
  memory: string;
  /** `--pids-limit`. */
  pids: number;
  /** `--cpus`, e.g. `1` or `0.5`. */
  cpus: string;
  /** Size of the tmpfs mounted at /tmp, e.g. `64m`. */
  tmpfsSize: string;
  /** `--ulimit` values (always explicit: podman's defaults fail on these hosts). */
  ulimits: readonly string[];
}

/** Defaults documented in docs/container-runner.md. */
export const defaultContainerLimits: ContainerLimits = {
  user: '10001:10001',
  memory: '512m',
  pids: 256,
  cpus: '1',
  tmpfsSize: '64m',
  ulimits: ['nofile=4096:4096', 'nproc=1024:1024'],
};

/** Where the release and data directories appear inside the container. */
export const CONTAINER_RELEASE_DIR = '/app';
export const CONTAINER_DATA_DIR = '/data';
/** PATH inside the image built by build-node-image.ts. */
export const CONTAINER_PATH = '/usr/bin:/bin';

/** Global podman flags put before every subcommand (explicit runtime, no dependence on host config files). */
export interface PodmanGlobal {
  /** podman executable (default `podman`). */
  podman: string;
  /** OCI runtime passed as `--runtime` (default `runc`). */
  runtime: string;
}

export const defaultPodmanGlobal: PodmanGlobal = { podman: 'podman', runtime: 'runc' };

export interface RunContext {
  image: string;
  /** Container name (also the record's containerId). */
  name: string;
  /** Host port published on loopback and the port the app listens on inside. */
  port: number;
  /** Host interface to publish on (loopback only). */
  hostIp: string;
  limits: ContainerLimits;
  global: PodmanGlobal;
  /** The platform's own environment; only what podman itself needs (PATH, XDG_RUNTIME_DIR, …) is kept. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * The svc package a release links as `node_modules/svc` (absolute symlink): its package.json, dist/ and
   * node_modules/ are mounted read-only at the same path so `svc/runtime` and `svc/sqlite` resolve.
   * Never the whole package directory (it may hold the platform's data directory).
   */
  platformPackageDir?: string;
}

/** The read-only mounts that make the platform package importable inside the container. */
export function platformPackageMounts(dir: string): string[] {
  if (!isAbsolute(dir) || dir.includes(',') || dir.includes('\n')) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The platform package path must be absolute and comma-free');
  return ['package.json', 'dist', 'node_modules'].flatMap((part) => ['--mount', `type=bind,src=${dir}/${part},dst=${dir}/${part},ro=true`]);
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Variables podman itself reads: a secret with such a name would change how podman (root) behaves. */
const podmanSensitive = /^(LD_|CONTAINERS_|XDG_|PODMAN_|BUILDAH_|STORAGE_|DOCKER_|GO[A-Z]|TMPDIR$|REGISTRY_AUTH_FILE$|HTTPS?_PROXY$|NO_PROXY$|https?_proxy$|no_proxy$)/;
/** What podman needs from the platform's environment to work at all. */
const podmanEnvNames = ['PATH', 'HOME', 'XDG_RUNTIME_DIR', 'LANG', 'TZ'] as const;

/** Whether a secret name may be passed to a container by name (rejects names podman would act on). */
export function isPassableSecretName(name: string): boolean {
  return envName.test(name) && !isReservedSecretName(name) && !podmanSensitive.test(name);
}

function podman(global: PodmanGlobal, args: readonly string[], env?: Record<string, string>): Command {
  return command(global.podman, ['--runtime', global.runtime, ...args], env ? { env, replaceEnv: true } : {});
}

/** The database path as seen inside the container; it must lie inside the data directory. */
export function containerDatabasePath(spec: AppStartSpec): string {
  const rel = relative(spec.dataDir, spec.databasePath);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The database path must lie inside the project data directory');
  }
  return `${CONTAINER_DATA_DIR}/${rel.split(sep).join('/')}`;
}

/**
 * `podman run` for one release, in the foreground (the client's exit is the app's exit):
 * read-only root, no capabilities, no-new-privileges, non-root user, PID/memory/CPU limits, explicit
 * ulimits, a tmpfs /tmp, the release read-only at /app and the project data read-write at /data and
 * nothing else, `--init` so SIGTERM reaches the app, and the port published on loopback only.
 * Public `env` is passed as NAME=value (it is in the artifact anyway); secrets and platform `SVC_*`
 * values only as `--env NAME`, with their values in the podman process environment.
 */
export function buildRunCommand(spec: AppStartSpec, ctx: RunContext): Command {
  const entry = checkEntry(spec.entry);
  if (!isAbsolute(spec.releaseDir) || !isAbsolute(spec.dataDir)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Release and data directories must be absolute');
  if (/^0(:|$)/.test(ctx.limits.user) || !/^\d+:\d+$/.test(ctx.limits.user)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The container user must be a numeric non-root uid:gid');
  if (ctx.hostIp !== '127.0.0.1' && ctx.hostIp !== '::1') throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Containers publish ports on loopback only');
  for (const path of [spec.releaseDir, spec.dataDir]) if (path.includes(',') || path.includes('\n')) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Mount paths may not contain commas');
  const dbPath = containerDatabasePath(spec);

  const env: Record<string, string> = {};
  for (const name of podmanEnvNames) {
    const value = ctx.baseEnv[name];
    if (value !== undefined) env[name] = value;
  }
  const literal: string[] = [];
  const byName: string[] = [];
  for (const [name, value] of Object.entries(spec.env)) {
    if (!envName.test(name) || isReservedEnvName(name) || name === 'PATH' || name === 'HOME') throw new SvcError('SVC_VALIDATION', `env name ${name} is invalid or reserved`);
    literal.push('--env', `${name}=${value}`);
  }
  for (const [name, value] of Object.entries(spec.secrets)) {
    if (!isPassableSecretName(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is invalid or reserved`);
    env[name] = value;
    byName.push('--env', name);
  }
  for (const [name, value] of Object.entries(spec.platformEnv ?? {})) {
    if (!name.startsWith('SVC_') || !envName.test(name)) throw new SvcError('SVC_VALIDATION', `platform env name ${name} must start with SVC_`);
    env[name] = value;
    byName.push('--env', name);
  }
  const platform: Record<string, string> = {
    PATH: CONTAINER_PATH,
    HOME: CONTAINER_DATA_DIR,
    PORT: String(ctx.port),
    HOST: '0.0.0.0',
    NODE_ENV: 'production',
    SVC_PROJECT_ID: spec.projectId,
    SVC_RELEASE_ID: spec.releaseId,
    SVC_DATA_DIR: CONTAINER_DATA_DIR,
    SVC_DATABASE_PATH: dbPath,
  };
  const { limits } = ctx;
  const args = [
    'run',
    '--rm',
    '--name', ctx.name,
    '--label', `svc.project=${spec.projectId}`,
    '--label', `svc.release=${spec.releaseId}`,
    '--init',
    '--read-only',
    '--read-only-tmpfs=false',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '--user', limits.user,
    '--pids-limit', String(limits.pids),
    '--memory', limits.memory,
    '--memory-swap', limits.memory,
    '--cpus', limits.cpus,
    ...limits.ulimits.flatMap((u) => ['--ulimit', u]),
    '--tmpfs', `/tmp:rw,noexec,nosuid,nodev,size=${limits.tmpfsSize}`,
    '--mount', `type=bind,src=${spec.releaseDir},dst=${CONTAINER_RELEASE_DIR},ro=true`,
    '--mount', `type=bind,src=${spec.dataDir},dst=${CONTAINER_DATA_DIR}`,
    ...(ctx.platformPackageDir ? platformPackageMounts(ctx.platformPackageDir) : []),
    '--workdir', CONTAINER_RELEASE_DIR,
    '--publish', `${ctx.hostIp}:${ctx.port}:${ctx.port}/tcp`,
    '--pull=never',
    ...literal,
    ...byName,
    ...Object.entries(platform).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    ctx.image,
    '/usr/bin/node',
    entry,
  ];
  return podman(ctx.global, args, env);
}

/** `podman stop` with a grace period in whole seconds (SIGTERM, then SIGKILL). */
export function buildStopCommand(global: PodmanGlobal, name: string, graceMs: number): Command {
  return podman(global, ['stop', '--ignore', '--time', String(Math.max(0, Math.ceil(graceMs / 1000))), name]);
}

/** `podman rm -f` (idempotent): removes the container whatever its state. */
export function buildRemoveCommand(global: PodmanGlobal, name: string): Command {
  return podman(global, ['rm', '--force', '--ignore', '--time', '0', name]);
}

/** `podman container inspect` printing whether the container runs. */
export function buildInspectRunningCommand(global: PodmanGlobal, name: string): Command {
  return podman(global, ['container', 'inspect', '--format', '{{.State.Running}}', name]);
}

/** `podman info`: a cheap check that podman and its runtime work on this host. */
export function buildInfoCommand(global: PodmanGlobal): Command {
  return podman(global, ['info', '--format', '{{.Host.OCIRuntime.Name}}']);
}

/** `podman image exists` (exit 0 when present). */
export function buildImageExistsCommand(global: PodmanGlobal, image: string): Command {
  return podman(global, ['image', 'exists', image]);
}

/** `podman import` of a root-filesystem tar as an image running as a non-root user. */
export function buildImportCommand(global: PodmanGlobal, tarPath: string, image: string, user: string): Command {
  return podman(global, [
    'import',
    '--change', `USER ${user}`,
    '--change', `WORKDIR ${CONTAINER_RELEASE_DIR}`,
    '--change', `ENV PATH=${CONTAINER_PATH}`,
    '--change', 'CMD ["/usr/bin/node"]',
    tarPath,
    image,
  ]);
}
