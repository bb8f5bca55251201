// Pure argv builders for podman: every hardening flag (docs/container-runner.md) lives here, as data.
// Nothing in this file runs anything; tests compare the exact argv.
import type { Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { checkEntry, isReservedEnvName, isReservedSecretName } from '../app-command.js';
import type { AppStartSpec } from '../app-runner.js';
import { SANDBOX_DATA_DIR, SANDBOX_RELEASE_DIR, sandboxLayout, type SandboxMount } from '../sandbox-layout.js';
import { isProjectNetworkName } from './network-args.js';
import { podmanCommand as podman, type PodmanGlobal } from './podman-command.js';

export { defaultPodmanGlobal, type PodmanGlobal } from './podman-command.js';

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

/** PATH inside the image built by build-node-image.ts. */
export const CONTAINER_PATH = '/usr/bin:/bin';

/** The image name used when SVC_CONTAINER_IMAGE is not set (build-node-image.ts builds it). */
export const DEFAULT_CONTAINER_IMAGE = 'localhost/svc-node:20';

export interface RunContext {
  image: string;
  /** Container name (also the record's containerId). */
  name: string;
  /** Host port published on loopback and the port the app listens on inside. */
  port: number;
  /** Host interface to publish on (loopback only). */
  hostIp: string;
  /** The project's own isolated network (see network-args.ts); never shared with another project. */
  network: string;
  limits: ContainerLimits;
  global: PodmanGlobal;
  /** The platform's own environment; only what podman itself needs (PATH, XDG_RUNTIME_DIR, …) is kept. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /**
   * The svc package a release links under node_modules/ (absolute symlinks): its package.json, dist/ and
   * node_modules/ are mounted read-only at the same path so `@svc-dev/svc/runtime` and `@svc-dev/svc/sqlite` resolve.
   * Never the whole package directory (it may hold the platform's data directory).
   */
  platformPackageDir?: string;
}

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Variables podman itself reads: a secret with such a name would change how podman (root) behaves. */
const podmanSensitive =
  /^(LD_|CONTAINERS_|XDG_|PODMAN_|BUILDAH_|STORAGE_|DOCKER_|GO[A-Z]|TMPDIR$|REGISTRY_AUTH_FILE$|HTTPS?_PROXY$|NO_PROXY$|https?_proxy$|no_proxy$)/;
/** What podman needs from the platform's environment to work at all. */
const podmanEnvNames = ['PATH', 'HOME', 'XDG_RUNTIME_DIR', 'LANG', 'TZ'] as const;

/** Whether a secret name may be passed to a container by name (rejects names podman would act on). */
export function isPassableSecretName(name: string): boolean {
  return envName.test(name) && !isReservedSecretName(name) && !podmanSensitive.test(name);
}

function mountFlag(mount: SandboxMount): string[] {
  return ['--mount', `type=bind,src=${mount.src},dst=${mount.dst}${mount.writable ? '' : ',ro=true'}`];
}

/**
 * `podman run` for one release, in the foreground (the client's exit is the app's exit):
 * read-only root, no capabilities, no-new-privileges, non-root user, PID/memory/CPU limits, explicit
 * ulimits, a tmpfs /tmp, only the mounts of the sandbox layout (release read-only at /app, data
 * read-write at /data, recovery repository at /recovery), `--init` so SIGTERM reaches the app, the
 * project's own isolated network, and the port published on loopback only.
 * Public `env` is passed as NAME=value (it is in the artifact anyway); secrets and platform `SVC_*`
 * values (host paths rewritten to container paths) only as `--env NAME`, with their values in the
 * podman process environment.
 */
export function buildRunCommand(spec: AppStartSpec, ctx: RunContext): Command {
  const entry = checkEntry(spec.entry);
  if (/^0(:|$)/.test(ctx.limits.user) || !/^\d+:\d+$/.test(ctx.limits.user))
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The container user must be a numeric non-root uid:gid');
  if (ctx.hostIp !== '127.0.0.1' && ctx.hostIp !== '::1') throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Containers publish ports on loopback only');
  if (!isProjectNetworkName(ctx.network)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Containers join only their project network');
  const layout = sandboxLayout(spec, ctx.platformPackageDir === undefined ? {} : { platformPackageDir: ctx.platformPackageDir });

  const env: Record<string, string> = {};
  for (const name of podmanEnvNames) {
    const value = ctx.baseEnv[name];
    if (value !== undefined) env[name] = value;
  }
  const literal: string[] = [];
  const byName: string[] = [];
  for (const [name, value] of Object.entries(spec.env)) {
    if (!envName.test(name) || isReservedEnvName(name) || name === 'PATH' || name === 'HOME')
      throw new SvcError('SVC_VALIDATION', `env name ${name} is invalid or reserved`);
    literal.push('--env', `${name}=${value}`);
  }
  for (const [name, value] of Object.entries(spec.secrets)) {
    if (!isPassableSecretName(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is invalid or reserved`);
    env[name] = value;
    byName.push('--env', name);
  }
  for (const [name, value] of Object.entries(layout.platformEnv)) {
    if (!name.startsWith('SVC_') || !envName.test(name)) throw new SvcError('SVC_VALIDATION', `platform env name ${name} must start with SVC_`);
    env[name] = value;
    byName.push('--env', name);
  }
  const platform: Record<string, string> = {
    PATH: CONTAINER_PATH,
    HOME: SANDBOX_DATA_DIR,
    PORT: String(ctx.port),
    HOST: '0.0.0.0',
    NODE_ENV: 'production',
    SVC_PROJECT_ID: spec.projectId,
    SVC_RELEASE_ID: spec.releaseId,
    SVC_DATA_DIR: layout.dataDir,
    SVC_DATABASE_PATH: layout.databasePath,
  };
  const { limits } = ctx;
  const args = [
    'run',
    '--rm',
    '--name',
    ctx.name,
    '--label',
    `svc.project=${spec.projectId}`,
    '--label',
    `svc.release=${spec.releaseId}`,
    '--init',
    '--read-only',
    '--read-only-tmpfs=false',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '--user',
    limits.user,
    '--pids-limit',
    String(limits.pids),
    '--memory',
    limits.memory,
    '--memory-swap',
    limits.memory,
    '--cpus',
    limits.cpus,
    ...limits.ulimits.flatMap((u) => ['--ulimit', u]),
    '--tmpfs',
    `/tmp:rw,noexec,nosuid,nodev,size=${limits.tmpfsSize}`,
    ...layout.mounts.flatMap(mountFlag),
    '--workdir',
    layout.releaseDir,
    '--network',
    ctx.network,
    '--publish',
    `${ctx.hostIp}:${ctx.port}:${ctx.port}/tcp`,
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

/** `podman image exists` (exit 0 when present). */
export function buildImageExistsCommand(global: PodmanGlobal, image: string): Command {
  return podman(global, ['image', 'exists', image]);
}

/** `podman import` of a root-filesystem tar as an image running as a non-root user. */
export function buildImportCommand(global: PodmanGlobal, tarPath: string, image: string, user: string): Command {
  return podman(global, [
    'import',
    '--change',
    `USER ${user}`,
    '--change',
    `WORKDIR ${SANDBOX_RELEASE_DIR}`,
    '--change',
    `ENV PATH=${CONTAINER_PATH}`,
    '--change',
    'CMD ["/usr/bin/node"]',
    tarPath,
    image,
  ]);
}
