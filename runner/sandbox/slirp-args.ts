// Pure construction of an app's network: slirp4netns gives the sandbox's own network namespace
// outbound access, forbids the host's loopback, and forwards one loopback port of the host to the app.
import { command, type Command } from '../../src/core/command.js';

/** File descriptors handed to slirp4netns. */
export const SLIRP_FDS = {
  /** Closed (EOF) when the sandbox ends: slirp4netns exits with it. */
  exit: 3,
  /** slirp4netns writes one byte here once the interface is up. */
  ready: 4,
} as const;

/** Inside the app's namespace: the resolver slirp4netns provides (the app's own interface is 10.0.2.100). */
export const SLIRP_RESOLVER = '10.0.2.3';

export interface SlirpContext {
  slirp4netns: string;
  /** Host pid of a process inside the app's network namespace (the sandbox's init). */
  sandboxPid: number;
  /** The API socket through which the port forward is added. */
  apiSocket: string;
  /** util-linux unshare: given (as root), slirp4netns runs in a mount namespace of slave mounts. */
  unshare?: string;
}

/**
 * `slirp4netns` attached to the sandbox's network namespace by path (never joining its user namespace,
 * which a root caller does not need): loopback of the host refused (other apps and the platform listen
 * there), its own mount namespace and seccomp filter, MTU large enough for loopback-like throughput.
 */
export function buildSlirpCommand(ctx: SlirpContext): Command {
  const slirp = command(
    ctx.slirp4netns,
    [
      '--configure',
      '--mtu=65520',
      '--disable-host-loopback',
      '--enable-sandbox',
      '--enable-seccomp',
      `--exit-fd=${SLIRP_FDS.exit}`,
      `--ready-fd=${SLIRP_FDS.ready}`,
      `--api-socket=${ctx.apiSocket}`,
      '--netns-type=path',
      `/proc/${ctx.sandboxPid}/ns/net`,
      'tap0',
    ],
    { env: { PATH: '/usr/bin:/bin' }, replaceEnv: true },
  );
  if (ctx.unshare === undefined) return slirp;
  // As root, slirp4netns's own sandbox leaves the mount namespace it starts in with a recursive unmount,
  // which reaches the host through shared mounts: every `ip netns` namespace under /run/netns would be
  // unmounted. Started in a namespace of slave mounts, those unmounts stay there (unshare execs, so the
  // pid is slirp4netns's).
  return command(ctx.unshare, ['--mount', '--propagation', 'slave', '--', slirp.file, ...slirp.args], { env: { ...slirp.env }, replaceEnv: true });
}

/** resolv.conf for an isolated app: slirp4netns's resolver, which forwards to the host's. */
export function isolatedResolvConf(): string {
  return `nameserver ${SLIRP_RESOLVER}\n`;
}

/** /etc/hosts inside every sandbox. */
export function sandboxHostsFile(): string {
  return '127.0.0.1 localhost svc-app\n::1 localhost ip6-localhost ip6-loopback\n';
}
