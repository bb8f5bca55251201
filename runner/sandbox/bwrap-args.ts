// Pure construction of the sandbox an app runs in: the bubblewrap argument list (mounts, namespaces,
// environment) and the small launcher chain around it, as data. Tests compare the exact lists.
import { command, type Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { appEnvironment, checkEntry } from '../app-command.js';
import type { AppStartSpec } from '../app-runner.js';
import { sandboxLayout } from '../sandbox-layout.js';

/** Where the Node binary appears inside every sandbox. */
export const SANDBOX_NODE = '/svc/bin/node';
/** PATH inside the sandbox: the Node binary's folder, then the read-only system. */
export const SANDBOX_PATH = '/svc/bin:/usr/bin:/bin';

/** File descriptors the launcher hands to bubblewrap. */
export const SANDBOX_FDS = {
  /** NUL-separated bubblewrap arguments: secrets travel here, never in a process's argv. */
  args: 3,
  /** bubblewrap writes `{"child-pid": …}` here: the host pid of the sandbox's init. */
  info: 4,
  /** bubblewrap waits for one byte here before it starts the app (the network is set up first). */
  block: 5,
  /** Held open while the sandbox lives; its peer tells the network helper when to exit. */
  sync: 6,
} as const;

/** One entry of the host's read-only system view. */
export type SystemEntry = { path: string; symlink: string } | { path: string; dir: true; optional?: boolean };

/** Facts about the host the argument list depends on, gathered by the caller (this file does no I/O). */
export interface SandboxHost {
  /** `/usr`, `/lib` → `usr/lib`, … and the few files of `/etc` an app needs (certificates, time zones). */
  system: readonly SystemEntry[];
  /** Real path of the Node binary; mounted read-only at SANDBOX_NODE. */
  nodePath: string;
  /** A resolv.conf to show as /etc/resolv.conf (the network helper's resolver when isolated). */
  resolvConf: string;
  /** A hosts file to show as /etc/hosts (localhost only). */
  hostsFile: string;
}

/** Per-app limits, applied as rlimits before the sandbox starts. */
export interface SandboxLimits {
  /** RLIMIT_DATA: private writable memory (heap, buffers), bytes. */
  memoryBytes: number;
  /** RLIMIT_NPROC: processes of the app's own uid (only with a uid per project). */
  processes: number;
  /** RLIMIT_NOFILE: open files and sockets. */
  openFiles: number;
  /** Size of the private /tmp (RAM-backed). */
  tmpBytes: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  memoryBytes: 512 * 1024 * 1024,
  processes: 2048,
  openFiles: 4096,
  tmpBytes: 64 * 1024 * 1024,
};

/**
 * How an isolated app is reached: a forwarder inside the sandbox listens on a unix socket in
 * `socketDir` (shown inside as SANDBOX_SOCKET_DIR) and connects to the app's port there; a forwarder
 * on the host listens on 127.0.0.1:port with a deep accept queue and connects to that socket. Both are
 * socat, and both end with the sandbox (inside: a child of the app; outside: a child of the launcher
 * that dies with it). slirp4netns keeps only the app's outbound network: its own port forward accepts
 * with a backlog of 1, so a burst of new connections stalls for seconds there.
 */
export interface SandboxForward {
  socat: string;
  setpriv: string;
  sh: string;
  /** Host directory of the app's socket, writable by the app's uid. */
  socketDir: string;
}

/** Where the forward's socket directory appears inside the sandbox. */
export const SANDBOX_SOCKET_DIR = '/run/svc';
const SOCKET_NAME = 'app.sock';

// Inside: start the socket forwarder in the background (with an empty environment: it needs none of the
// app's secrets), then become the app. "$0" = socat, "$1" = node, "$2" = entry; PORT is the app's own.
const INNER_SCRIPT = `env -i "$0" UNIX-LISTEN:${SANDBOX_SOCKET_DIR}/${SOCKET_NAME},fork,backlog=4096,mode=600,unlink-early TCP:127.0.0.1:"$PORT" & exec "$1" "$2"`;
// Outside: the host forwarder, killed when the launcher (this very process, after exec) ends; it gets
// none of the sandbox's descriptors. "$0" = setpriv, "$1" = socat, "$2" = port, "$3" = socket path.
const LAUNCH_SCRIPT = `"$0" --pdeathsig KILL -- "$1" TCP-LISTEN:"$2",bind=127.0.0.1,reuseaddr,fork,backlog=4096 UNIX-CONNECT:"$3" 3<&- 4>&- 5<&- 6>&- </dev/null & shift 3; exec "$@"`;

/** The host path of an isolated app's socket. */
export function forwardSocketPath(forward: Pick<SandboxForward, 'socketDir'>): string {
  return `${forward.socketDir}/${SOCKET_NAME}`;
}

export interface SandboxContext {
  /** Executables (absolute paths, resolved by the caller). */
  tools: { bwrap: string; prlimit: string; setsid: string };
  /** How the app is reached from the host when its network is isolated (required then). */
  forward?: SandboxForward;
  host: SandboxHost;
  /** Port the app listens on inside (and is published on loopback outside). */
  port: number;
  /** `isolated`: own network namespace (reached through the network helper); `shared`: the host's. */
  network: 'isolated' | 'shared';
  limits: SandboxLimits;
  /** The app runs under a uid of its own project, so RLIMIT_NPROC counts only that project. */
  ownUid: boolean;
  platformPackageDir?: string;
  /** The platform's environment, from which only LANG, LC_ALL and TZ are taken. */
  baseEnv: Readonly<Record<string, string | undefined>>;
}

/** The launcher to spawn, and the bubblewrap arguments to write to its SANDBOX_FDS.args descriptor. */
export interface SandboxCommand {
  /** `prlimit … -- setsid --fork --wait bwrap --args 3 -- node <entry>`: nothing secret in it. */
  launcher: Command;
  /** NUL-separated onto fd 3. */
  bwrapArgs: string[];
}

function mountFlag(writable: boolean): string {
  return writable ? '--bind' : '--ro-bind';
}

function systemArgs(host: SandboxHost): string[] {
  const args: string[] = [];
  for (const entry of host.system) {
    if ('symlink' in entry) args.push('--symlink', entry.symlink, entry.path);
    else args.push(entry.optional ? '--ro-bind-try' : '--ro-bind', entry.path, entry.path);
  }
  return args;
}

/**
 * The whole sandbox of one app start. Namespaces: user, PID, IPC, UTS, cgroup and (isolated) network
 * are new; no further user namespaces inside; a new session (no terminal injection); everything dies
 * with the launcher that supervises it. Filesystem: a fresh root with the system read-only, the Node
 * binary, the release read-only at /app, the data directory (and recovery repository) read-write,
 * a private /tmp, minimal /dev and its own /proc, nothing else of the host. Environment: cleared, then
 * exactly the app's own variables.
 */
export function buildSandboxCommand(spec: AppStartSpec, ctx: SandboxContext): SandboxCommand {
  const entry = checkEntry(spec.entry);
  if (!Number.isInteger(ctx.port) || ctx.port < 1 || ctx.port > 65535) throw new SvcError('SVC_SANDBOX_CONFIG', `Invalid app port ${ctx.port}`);
  const forward = ctx.network === 'isolated' ? ctx.forward : undefined;
  if (ctx.network === 'isolated' && !forward) throw new SvcError('SVC_SANDBOX_CONFIG', 'An isolated sandbox needs its port forward (socat)');
  const layout = sandboxLayout(spec, ctx.platformPackageDir === undefined ? {} : { platformPackageDir: ctx.platformPackageDir });
  const env = appEnvironment(
    spec,
    { dataDir: layout.dataDir, databasePath: layout.databasePath, platformEnv: layout.platformEnv },
    { port: ctx.port, host: ctx.network === 'isolated' ? '0.0.0.0' : '127.0.0.1', baseEnv: ctx.baseEnv },
  );
  env.PATH = SANDBOX_PATH;

  const bwrapArgs = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(ctx.network === 'isolated' ? ['--unshare-net'] : []),
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'svc-app',
    ...systemArgs(ctx.host),
    '--ro-bind',
    ctx.host.nodePath,
    SANDBOX_NODE,
    '--ro-bind',
    ctx.host.resolvConf,
    '/etc/resolv.conf',
    '--ro-bind',
    ctx.host.hostsFile,
    '/etc/hosts',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(ctx.limits.tmpBytes),
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    ...layout.mounts.flatMap((m) => [mountFlag(m.writable), m.src, m.dst]),
    ...(forward ? ['--bind', forward.socketDir, SANDBOX_SOCKET_DIR] : []),
    '--chdir',
    layout.releaseDir,
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--info-fd',
    String(SANDBOX_FDS.info),
    '--block-fd',
    String(SANDBOX_FDS.block),
    '--sync-fd',
    String(SANDBOX_FDS.sync),
  ];
  const rlimits = [
    `--data=${ctx.limits.memoryBytes}:${ctx.limits.memoryBytes}`,
    `--nofile=${ctx.limits.openFiles}:${ctx.limits.openFiles}`,
    ...(ctx.ownUid ? [`--nproc=${ctx.limits.processes}:${ctx.limits.processes}`] : []),
    '--core=0:0',
  ];
  const app = forward ? [forward.sh, '-c', INNER_SCRIPT, forward.socat, SANDBOX_NODE, entry] : [SANDBOX_NODE, entry];
  const sandboxed = [
    ctx.tools.prlimit,
    ...rlimits,
    '--',
    ctx.tools.setsid,
    '--fork',
    '--wait',
    ctx.tools.bwrap,
    '--args',
    String(SANDBOX_FDS.args),
    '--',
    ...app,
  ];
  const [file, ...args] = forward
    ? [forward.sh, '-c', LAUNCH_SCRIPT, forward.setpriv, forward.socat, String(ctx.port), forwardSocketPath(forward), ...sandboxed]
    : sandboxed;
  const launcher = command(file!, args, { env: { PATH: '/usr/bin:/bin' }, replaceEnv: true });
  return { launcher, bwrapArgs };
}

/** Encode an argument list for bubblewrap's `--args FD`. */
export function encodeArgs(args: readonly string[]): Buffer {
  for (const arg of args) if (arg.includes('\0')) throw new SvcError('SVC_SANDBOX_CONFIG', 'A sandbox argument contains a NUL byte');
  return Buffer.from(args.map((a) => `${a}\0`).join(''), 'utf8');
}
