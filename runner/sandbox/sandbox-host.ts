// The host facts a sandbox is built from (where the system lives, which tools exist), and the probe
// that proves this host can create sandboxes before any app is started in one.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../src/core/atomic-write.js';
import { SvcError } from '../../src/core/errors.js';
import { findExecutable, isExecutable, SYSTEM_BIN_DIRS } from '../../src/core/find-executable.js';
import type { SandboxHost, SystemEntry } from './bwrap-args.js';
import { isolatedResolvConf, sandboxHostsFile } from './slirp-args.js';

/** Executables the sandbox needs, as absolute paths. */
export interface SandboxTools {
  bwrap: string;
  prlimit: string;
  setsid: string;
  slirp4netns: string | null;
  /** util-linux unshare, which slirp4netns runs under as root (see buildSlirpCommand); null otherwise. */
  unshare?: string | null;
  /** The isolated network's port forward (socat, with setpriv and sh around it); null when shared. */
  forward?: { socat: string; setpriv: string; sh: string } | null;
}

function executable(path: string): string | null {
  return isExecutable(path) ? path : null;
}

// Sandbox tools live in the system folders even when the platform runs with a short PATH.
function findSystemExecutable(name: string): string | null {
  return findExecutable(name, process.env.PATH ?? '', SYSTEM_BIN_DIRS);
}

/** Find the tools; a missing required one is SVC_SANDBOX_UNAVAILABLE with the install hint. */
export function findSandboxTools(network: 'isolated' | 'shared', bwrapPath?: string): SandboxTools {
  const bwrap = bwrapPath === undefined ? findSystemExecutable('bwrap') : executable(bwrapPath);
  const prlimit = findSystemExecutable('prlimit');
  const setsid = findSystemExecutable('setsid');
  const slirp4netns = findSystemExecutable('slirp4netns');
  // Only root needs it: an unprivileged slirp4netns's mounts cannot reach the host's anyway.
  const unshare = network === 'isolated' && process.getuid?.() === 0 ? findSystemExecutable('unshare') : null;
  const isolated = network === 'isolated';
  const socat = isolated ? findSystemExecutable('socat') : null;
  const setpriv = isolated ? findSystemExecutable('setpriv') : null;
  const sh = isolated ? findSystemExecutable('sh') : null;
  const missing = [
    !bwrap && 'bwrap (package bubblewrap)',
    isolated && !socat && 'socat',
    isolated && !setpriv && 'setpriv (util-linux)',
    isolated && !sh && 'sh',
    !prlimit && 'prlimit (util-linux)',
    !setsid && 'setsid (util-linux)',
    network === 'isolated' && !slirp4netns && 'slirp4netns',
    network === 'isolated' && process.getuid?.() === 0 && !unshare && 'unshare (util-linux)',
  ].filter(Boolean);
  if (missing.length > 0) throw new SvcError('SVC_SANDBOX_UNAVAILABLE', `The app sandbox needs ${missing.join(', ')}, which this host lacks.`);
  return { bwrap: bwrap!, prlimit: prlimit!, setsid: setsid!, slirp4netns, unshare, forward: socat && setpriv && sh ? { socat, setpriv, sh } : null };
}

/** System paths shown read-only in every sandbox (symlinked where the host has merged /usr). */
const SYSTEM_ROOTS = ['/usr', '/lib', '/lib64', '/lib32', '/bin', '/sbin'];
/** Files and folders of /etc an app may need: certificates, time zones, name service order. */
const ETC_ENTRIES = ['/etc/ssl', '/etc/ca-certificates', '/etc/pki', '/etc/localtime', '/etc/nsswitch.conf', '/etc/ld.so.cache', '/etc/alternatives'];

/** Gather the host facts and write the sandbox's own resolv.conf and hosts files under `etcDir`. */
export function describeSandboxHost(options: { nodePath: string; etcDir: string; network: 'isolated' | 'shared' }): SandboxHost {
  const system: SystemEntry[] = [];
  for (const path of SYSTEM_ROOTS) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) system.push({ path, symlink: readlinkSync(path) });
    else if (stat.isDirectory()) system.push({ path, dir: true });
  }
  for (const path of ETC_ENTRIES) if (existsSync(path)) system.push({ path, dir: true, optional: true });
  mkdirSync(options.etcDir, { recursive: true, mode: 0o755 });
  const resolvConf = join(options.etcDir, options.network === 'isolated' ? 'resolv.isolated.conf' : 'resolv.conf');
  const hostsFile = join(options.etcDir, 'hosts');
  const hostResolv = (() => {
    try {
      return realpathSync('/etc/resolv.conf');
    } catch {
      return null;
    }
  })();
  if (options.network === 'isolated' || !hostResolv)
    atomicWriteFileSync(resolvConf, options.network === 'isolated' ? isolatedResolvConf() : '', { mode: 0o644 });
  atomicWriteFileSync(hostsFile, sandboxHostsFile(), { mode: 0o644 });
  return {
    system,
    nodePath: realpathSync(options.nodePath),
    resolvConf: options.network === 'isolated' || !hostResolv ? resolvConf : hostResolv,
    hostsFile,
  };
}

/**
 * Prove that sandboxes work here: bubblewrap must create user, PID and (isolated) network namespaces as
 * the uid apps will run under. Throws SVC_SANDBOX_UNAVAILABLE with bubblewrap's own words otherwise.
 */
export function probeSandbox(tools: SandboxTools, options: { network: 'isolated' | 'shared'; uid?: number }): void {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(options.network === 'isolated' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
  ];
  for (const path of SYSTEM_ROOTS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
      else args.push('--ro-bind', path, path);
    } catch {
      // Not on this host.
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--', 'true');
  const result = spawnSync(tools.bwrap, args, {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin' },
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  if (result.error || result.status !== 0) {
    const why = (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n').slice(-2).join(' ');
    throw new SvcError('SVC_SANDBOX_UNAVAILABLE', `bubblewrap cannot create the app sandbox on this host: ${why}`);
  }
}
