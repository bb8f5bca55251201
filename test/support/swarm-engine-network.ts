// The links of a throwaway test swarm: one host bridge per swarm (10.213.K.1/24, what tasks reach the
// host on) and one network namespace per node, each joined to the bridge by a veth pair (manager
// 10.213.K.2, worker n 10.213.K.(2+n)). Nodes talk to each other over the bridge; the host reaches
// every node's published ports at its address. Names derive from K, so cleanup needs no lookup.
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { command } from '../../src/core/command.js';
import { execChecked, execCommand } from '../../src/core/exec.js';

/** One swarm's claim: K picks its /24 and every name below. */
export interface SwarmSlot {
  k: number;
  bridge: string;
  hostAddress: string;
}

/** A node's namespace, veth pair and address; index 0 is the manager, n ≥ 1 the n-th worker. */
export interface NodeLinks {
  netns: string;
  hostLink: string;
  nodeLink: string;
  address: string;
}

const ip = (...args: string[]) => execChecked(command('ip', args));
const tryIp = async (...args: string[]): Promise<boolean> => (await execCommand(command('ip', args))).exitCode === 0;

export function nodeLinks(k: number, index: number): NodeLinks {
  const suffix = index === 0 ? '' : `w${index}`;
  return {
    netns: index === 0 ? `svc-swarm-${k}` : `svc-swarm-${k}-w${index}`,
    hostLink: `svcsw${k}${suffix}h`,
    nodeLink: `svcsw${k}${suffix}n`,
    address: `10.213.${k}.${2 + index}`,
  };
}

function namespacesOf(k: number): string[] {
  try {
    return readdirSync('/run/netns').filter((name) => name === `svc-swarm-${k}` || name.startsWith(`svc-swarm-${k}-`));
  } catch {
    return [];
  }
}

/**
 * Claim a free K: `ip netns add` of the manager's namespace fails when the name exists, so parallel
 * files never share one; a K with any address, namespace or bridge left over is skipped.
 */
export async function claimSlot(): Promise<SwarmSlot> {
  const used = (await execChecked(command('ip', ['-o', '-4', 'addr', 'show']))).stdout;
  for (let attempt = 0; attempt < 40; attempt++) {
    const k = 1 + randomInt(250);
    const slot = { k, bridge: `svcsw${k}b`, hostAddress: `10.213.${k}.1` };
    if (used.includes(` 10.213.${k}.`) || namespacesOf(k).length > 0 || existsSync(`/sys/class/net/${slot.bridge}`)) continue;
    if (!(await tryIp('netns', 'add', nodeLinks(k, 0).netns))) continue;
    if (!(await tryIp('link', 'add', slot.bridge, 'type', 'bridge'))) {
      await tryIp('netns', 'del', nodeLinks(k, 0).netns);
      continue;
    }
    await ip('addr', 'add', `${slot.hostAddress}/24`, 'dev', slot.bridge);
    await ip('link', 'set', slot.bridge, 'up');
    return slot;
  }
  throw new Error('no free 10.213.K.0/24 slot for a test swarm engine');
}

/** Create node `index`'s namespace (the manager's exists from the claim) and plug it into the bridge. */
export async function wireNode(slot: SwarmSlot, index: number): Promise<NodeLinks> {
  const links = nodeLinks(slot.k, index);
  if (index > 0) await ip('netns', 'add', links.netns);
  const inNs = (...args: string[]) => ip('-n', links.netns, ...args);
  await ip('link', 'add', links.hostLink, 'type', 'veth', 'peer', 'name', links.nodeLink);
  await ip('link', 'set', links.nodeLink, 'netns', links.netns);
  await ip('link', 'set', links.hostLink, 'master', slot.bridge);
  await ip('link', 'set', links.hostLink, 'up');
  await inNs('addr', 'add', `${links.address}/24`, 'dev', links.nodeLink);
  await inNs('link', 'set', links.nodeLink, 'up');
  await inNs('link', 'set', 'lo', 'up');
  await inNs('route', 'add', 'default', 'via', slot.hostAddress);
  return links;
}

/** Delete every veth, namespace and the bridge of the slot (whatever of them exists). */
export async function releaseSlot(slot: SwarmSlot, nodes: number): Promise<void> {
  for (let index = 0; index < nodes; index++) {
    const links = nodeLinks(slot.k, index);
    await tryIp('link', 'del', links.hostLink);
    await tryIp('netns', 'del', links.netns);
  }
  await tryIp('link', 'del', slot.bridge);
}
