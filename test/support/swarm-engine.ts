// A throwaway Docker Swarm for the real-engine suites: a manager and, when asked, workers. Each node's
// dockerd runs in its own network namespace, plugged into one host bridge by a veth pair (host
// 10.213.K.1, manager 10.213.K.2, worker n 10.213.K.(2+n)), with its own data root, exec root,
// pidfile and unix socket under the swarm's temp dir. Docker's iptables rules (tenant isolation
// depends on them) therefore land inside those namespaces and never on the test machine.
// stop() leaves no process, mount, link, namespace or directory of any node behind.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './process-alive.js';
import { commandComponent, requireComponents, rootComponent, type ComponentGate } from './require-components.js';
import { processesUnder, terminate, unmountUnder } from './swarm-engine-cleanup.js';
import { copyImage, engineCall, startDaemon, waitFor, type TestDaemon } from './swarm-engine-daemon.js';
import { claimSlot, releaseSlot, wireNode, type SwarmSlot } from './swarm-engine-network.js';

/** One node's daemon. */
export interface SwarmNode {
  /** `unix:///…/docker.sock`, for DOCKER_HOST or the engine client. */
  dockerHost: string;
  socketPath: string;
  /** Network namespace name (`/run/netns/<netns>`). */
  netns: string;
  /** The node's own address (swarm advertise address; host-mode published ports answer here). */
  nodeAddress: string;
  nodeId: string;
  /** dockerd's pid (for tests that check it is gone). */
  pid: number;
}

/** The manager (the fields at the top level, as before workers existed) and its workers. */
export interface SwarmEngine extends SwarmNode {
  /** The host's address on the swarm's bridge: what tasks on any node reach the host (the release endpoint) on. */
  hostAddress: string;
  /** Workers joined so far, in order (worker n advertises 10.213.K.(2+n)). */
  workers: SwarmNode[];
  /** Start one more dockerd in its own namespace and join it as a worker; resolves once the manager sees it ready. */
  addWorker(): Promise<SwarmNode>;
  /**
   * Put a manager image on every worker under the same id (saved from the manager, loaded on the
   * worker): images are local, never pulled, and a task runs only where its image is.
   */
  shareImage(imageId: string): Promise<void>;
  /** Safe to call twice; the second call waits for the first. */
  stop(): Promise<void>;
}

export interface SwarmEngineOptions {
  /** Workers to join before the engine is handed out (default 0: a single-node swarm). */
  workers?: number;
}

/** The components a real-engine suite needs; under CI a missing one fails the suite. */
export function swarmEngineGate(what: string): ComponentGate {
  return requireComponents(what, [
    rootComponent(),
    commandComponent('dockerd', ['dockerd', '--version']),
    commandComponent('containerd', ['containerd', '--version']),
    commandComponent('ip (iproute2)', ['ip', 'netns', 'list']),
    commandComponent('nsenter', ['nsenter', '--version']),
    commandComponent('iptables', ['iptables', '--version']),
  ]);
}

interface NodeState {
  node: SwarmNode;
  daemon: TestDaemon;
}

function nodeOf(daemon: TestDaemon, netns: string, nodeAddress: string, nodeId: string): SwarmNode {
  return { dockerHost: `unix://${daemon.socketPath}`, socketPath: daemon.socketPath, netns, nodeAddress, nodeId, pid: daemon.pid };
}

async function nodeState(managerSocket: string, nodeId: string): Promise<{ state?: string; reachability?: string }> {
  const node = JSON.parse((await engineCall(managerSocket, 'GET', `/nodes/${nodeId}`)).body) as {
    Status?: { State?: string };
    ManagerStatus?: { Reachability?: string };
  };
  return { state: node.Status?.State, reachability: node.ManagerStatus?.Reachability };
}

async function initManager(slot: SwarmSlot, dir: string, track: (daemon: TestDaemon) => void): Promise<NodeState> {
  const links = await wireNode(slot, 0);
  const daemon = await startDaemon(dir, links.netns);
  track(daemon);
  const init = await engineCall(daemon.socketPath, 'POST', '/swarm/init', { ListenAddr: `${links.address}:2377`, AdvertiseAddr: links.address }, 60_000);
  if (init.status !== 200) throw new Error(`swarm init answered ${init.status}: ${init.body}`);
  const nodeId = JSON.parse(init.body) as string;
  await waitFor(
    'swarm node ready',
    60_000,
    async () => {
      const { state, reachability } = await nodeState(daemon.socketPath, nodeId);
      return state === 'ready' && reachability === 'reachable' ? true : undefined;
    },
    daemon.failed,
  );
  return { node: nodeOf(daemon, links.netns, links.address, nodeId), daemon };
}

async function joinWorker(slot: SwarmSlot, index: number, dir: string, manager: SwarmNode, track: (daemon: TestDaemon) => void): Promise<NodeState> {
  const links = await wireNode(slot, index);
  mkdirSync(dir);
  const daemon = await startDaemon(dir, links.netns);
  track(daemon);
  const swarm = JSON.parse((await engineCall(manager.socketPath, 'GET', '/swarm')).body) as { JoinTokens: { Worker: string } };
  const join = await engineCall(
    daemon.socketPath,
    'POST',
    '/swarm/join',
    { ListenAddr: `${links.address}:2377`, AdvertiseAddr: links.address, RemoteAddrs: [`${manager.nodeAddress}:2377`], JoinToken: swarm.JoinTokens.Worker },
    60_000,
  );
  if (join.status !== 200) throw new Error(`swarm join of worker ${index} answered ${join.status}: ${join.body}`);
  const info = JSON.parse((await engineCall(daemon.socketPath, 'GET', '/info')).body) as { Swarm: { NodeID: string } };
  const nodeId = info.Swarm.NodeID;
  await waitFor('swarm worker ready', 60_000, async () => ((await nodeState(manager.socketPath, nodeId)).state === 'ready' ? true : undefined), daemon.failed);
  return { node: nodeOf(daemon, links.netns, links.address, nodeId), daemon };
}

/** Start a swarm: the manager, then `options.workers` workers joined to it. */
export async function startSwarmEngine(options: SwarmEngineOptions = {}): Promise<SwarmEngine> {
  const slot = await claimSlot();
  const dir = mkdtempSync('/tmp/svc-swarm-');
  const daemons: TestDaemon[] = [];
  const track = (daemon: TestDaemon): void => void daemons.push(daemon);
  let wired = 1;
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // Workers first, then the manager; leaving first removes the tasks, so no shutdown waits for a container.
      for (const daemon of [...daemons].reverse()) {
        if (!daemon.pid || !alive(daemon.pid)) continue;
        await engineCall(daemon.socketPath, 'POST', '/swarm/leave?force=true', undefined, 20_000).catch(() => undefined);
        await terminate([daemon.pid], 20_000);
      }
      // containerd, shims and their containers name the temp dir (every node's is under it) in their command lines.
      await terminate(processesUnder(dir), 5_000);
      await unmountUnder(dir);
      await releaseSlot(slot, wired);
      rmSync(dir, { recursive: true, force: true });
    })());

  try {
    const manager = await initManager(slot, dir, track);
    const workers: SwarmNode[] = [];
    let adding: Promise<unknown> = Promise.resolve();
    const addWorker = (): Promise<SwarmNode> => {
      const next = adding.then(async () => {
        if (stopping) throw new Error('the test swarm is stopping');
        const index = workers.length + 1;
        wired = index + 1;
        const worker = await joinWorker(slot, index, join(dir, `worker-${index}`), manager.node, track);
        workers.push(worker.node);
        return worker.node;
      });
      adding = next.catch(() => undefined);
      return next;
    };
    const shareImage = async (imageId: string): Promise<void> => {
      for (const worker of workers) {
        if ((await engineCall(worker.socketPath, 'GET', `/images/${encodeURIComponent(imageId)}/json`)).status === 200) continue;
        await copyImage(manager.node.socketPath, worker.socketPath, imageId);
        const loaded = await engineCall(worker.socketPath, 'GET', `/images/${encodeURIComponent(imageId)}/json`);
        if (loaded.status !== 200) throw new Error(`worker ${worker.nodeAddress} has no image ${imageId} after loading it (${loaded.status})`);
      }
    };
    const engine: SwarmEngine = { ...manager.node, hostAddress: slot.hostAddress, workers, addWorker, shareImage, stop };
    for (let n = 0; n < (options.workers ?? 0); n++) await addWorker();
    return engine;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Join one more worker to `engine` (the same as `engine.addWorker()`). */
export function addSwarmWorker(engine: SwarmEngine): Promise<SwarmNode> {
  return engine.addWorker();
}
