// Pure argv builders for the per-project podman networks. Every project gets its own bridge created
// with `isolate=true`: podman then installs the CNI firewall plugin with `ingressPolicy: same-bridge`
// (netavark has the same option), which drops forwarded traffic from one isolated bridge to another,
// so an app cannot open a connection to another project's container. See docs/container-runner.md.
import { createHash } from 'node:crypto';
import type { Command } from '../../src/core/command.js';
import { podmanCommand, type PodmanGlobal } from './podman-command.js';

/** Label on every network this runner creates: the cleanup only ever touches networks carrying it. */
export const NETWORK_LABEL = 'svc.network=project';

// Names podman accepts are [a-zA-Z0-9][a-zA-Z0-9_.-]*; the CNI config file is named after the network,
// so names stay short. Ids that do not fit are hashed under a different prefix, so no two projects
// ever map to the same network (a shared network would mean no isolation between them).
const plainId = /^[a-zA-Z0-9_.-]{1,48}$/;
const projectNetwork = /^svc-(p-[a-zA-Z0-9_.-]{1,48}|ph-[0-9a-f]{32})$/;

/** The network of one project: `svc-p-<projectId>`, or `svc-ph-<hash>` for ids that do not fit. */
export function projectNetworkName(projectId: string): string {
  if (plainId.test(projectId)) return `svc-p-${projectId}`;
  return `svc-ph-${createHash('sha256').update(projectId).digest('hex').slice(0, 32)}`;
}

/** Whether `name` is a project network name (never `host`, `none`, `podman` or another mode). */
export function isProjectNetworkName(name: string): boolean {
  return projectNetwork.test(name);
}

/** `podman network exists` (exit 0 when it exists, 1 when not). */
export function buildNetworkExistsCommand(global: PodmanGlobal, name: string): Command {
  return podmanCommand(global, ['network', 'exists', name]);
}

/**
 * `podman network create` of an isolated bridge. No DNS server: apps have no business resolving
 * container names, and the host's resolv.conf is used for the outside world.
 */
export function buildNetworkCreateCommand(global: PodmanGlobal, name: string): Command {
  return podmanCommand(global, ['network', 'create', '--driver', 'bridge', '--opt', 'isolate=true', '--disable-dns', '--label', NETWORK_LABEL, name]);
}

/** `podman network rm` without --force: fails while a container still uses the network. */
export function buildNetworkRemoveCommand(global: PodmanGlobal, name: string): Command {
  return podmanCommand(global, ['network', 'rm', name]);
}

/** The names of all networks this runner created, one per line. */
export function buildNetworkListCommand(global: PodmanGlobal): Command {
  return podmanCommand(global, ['network', 'ls', '--filter', `label=${NETWORK_LABEL}`, '--format', '{{.Name}}']);
}
