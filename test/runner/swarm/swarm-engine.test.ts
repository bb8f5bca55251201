// The real-engine suites' throwaway swarm: it starts, is a ready single-node manager, joins workers
// in their own namespaces on request (an image shared to them keeps its id; a worker's published
// port answers the host at the worker's address), and stop() leaves nothing of any node behind, even
// when a dockerd was killed and left its mounts, shims and task processes.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import { assembleNodeRootfs, writeRootfsTar } from '../../../runner/container/node-rootfs.js';
import { createEngineClient, type EngineClient } from '../../../runner/swarm/engine-client.js';
import type { EngineServiceSpec } from '../../../runner/swarm/engine-spec.js';
import { publishedPort } from '../../../runner/swarm/task-observation.js';
import { alive } from '../../support/process-alive.js';
import { addSwarmWorker, startSwarmEngine, swarmEngineGate, type SwarmEngine, type SwarmNode } from '../../support/swarm-engine.js';
import { mountsUnder, processesUnder } from '../../support/swarm-engine-cleanup.js';

const gate = swarmEngineGate('swarm engine');

function get(socketPath: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ socketPath, path: `/v1.41${path}` }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });
}

async function linkExists(name: string): Promise<boolean> {
  return (await execCommand(command('ip', ['link', 'show', name]))).exitCode === 0;
}

const containerdPidOf = (node: SwarmNode): number => Number(readFileSync(join(dirname(node.socketPath), 'exec/containerd/containerd.pid'), 'utf8'));
const containerdPid = (engine: SwarmEngine): number => containerdPidOf(engine);

/** Everything an engine may leave behind, as a list of what is still there (nodes and containerds read before stop). */
async function leftovers(engine: SwarmEngine, containerdPids: number | number[], nodes: SwarmNode[] = [engine, ...engine.workers]): Promise<string[]> {
  const dir = dirname(engine.socketPath);
  const k = engine.nodeAddress.split('.')[2];
  const links = [`svcsw${k}b`, `svcsw${k}h`, ...nodes.slice(1).map((_, i) => `svcsw${k}w${i + 1}h`)];
  return [
    ...nodes.map((node) => (alive(node.pid) ? `dockerd ${node.pid}` : '')),
    ...[containerdPids].flat().map((pid) => (pid && alive(pid) ? `containerd ${pid}` : '')),
    ...processesUnder(dir).map((pid) => `process ${pid}`),
    ...mountsUnder(dir),
    ...nodes.map((node) => (existsSync(`/run/netns/${node.netns}`) ? `netns ${node.netns}` : '')),
    ...(await Promise.all(links.map(async (link) => ((await linkExists(link)) ? `link ${link}` : '')))),
    existsSync(dir) ? `dir ${dir}` : '',
  ].filter(Boolean);
}

describe.skipIf(gate.skip)('test swarm engine', () => {
  let engine: SwarmEngine;
  let startSeconds = 0;
  beforeAll(async () => {
    gate.assertPresent();
    const started = Date.now();
    engine = await startSwarmEngine();
    startSeconds = (Date.now() - started) / 1000;
  }, 120_000);
  afterAll(() => engine?.stop(), 60_000);

  it('is a ready single-node swarm manager advertising its netns address', async () => {
    console.log(`swarm engine started in ${startSeconds.toFixed(1)} s`);
    expect(engine.dockerHost).toBe(`unix://${engine.socketPath}`);
    expect(engine.hostAddress).toMatch(/^10\.213\.\d+\.1$/);
    const info = JSON.parse((await get(engine.socketPath, '/info')).body) as {
      Swarm: { LocalNodeState: string; ControlAvailable: boolean; NodeID: string; NodeAddr: string };
    };
    expect(info.Swarm).toMatchObject({ LocalNodeState: 'active', ControlAvailable: true, NodeID: engine.nodeId, NodeAddr: engine.nodeAddress });
    const node = JSON.parse((await get(engine.socketPath, `/nodes/${engine.nodeId}`)).body) as { Status: { State: string; Addr: string } };
    expect(node.Status).toMatchObject({ State: 'ready', Addr: engine.nodeAddress });
  });

  it('runs dockerd inside its own network namespace with iptables on there, not on the host', async () => {
    expect(readlinkSync(`/proc/${engine.pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
    const rules = await execCommand(command('nsenter', [`--net=/run/netns/${engine.netns}`, 'iptables', '-S', 'DOCKER-USER']));
    expect(rules.exitCode, rules.stderr).toBe(0);
  });

  it('a second engine started alongside gets its own namespace and address', async () => {
    const other = await startSwarmEngine();
    try {
      expect(other.netns).not.toBe(engine.netns);
      expect(other.nodeAddress).not.toBe(engine.nodeAddress);
      expect((await get(other.socketPath, '/_ping')).status).toBe(200);
    } finally {
      await other.stop();
    }
  }, 120_000);
});

describe.skipIf(gate.skip)('test swarm engine stop', () => {
  beforeAll(() => gate.assertPresent());

  it('leaves no process, mount, veth, netns or directory, and may be called twice', async () => {
    const engine = await startSwarmEngine();
    const containerd = containerdPid(engine);
    expect(await leftovers(engine, containerd)).not.toEqual([]);
    const started = Date.now();
    await Promise.all([engine.stop(), engine.stop()]);
    console.log(`swarm engine stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await engine.stop();
    expect(await leftovers(engine, containerd)).toEqual([]);
  }, 120_000);

  it('cleans up after a dockerd that was killed hard (its mounts stay behind)', async () => {
    const engine = await startSwarmEngine();
    const containerd = containerdPid(engine);
    process.kill(engine.pid, 'SIGKILL');
    for (let i = 0; i < 50 && alive(engine.pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mountsUnder(dirname(engine.socketPath))).not.toEqual([]);
    await engine.stop();
    expect(await leftovers(engine, containerd)).toEqual([]);
  }, 120_000);

  it('cleans up the shims and container processes of a running task whose dockerd was killed hard', async () => {
    const engine = await startSwarmEngine();
    const work = await mkdtemp(join(tmpdir(), 'svc-engine-kill-'));
    try {
      const client = createEngineClient({ dockerHost: engine.dockerHost });
      await assembleNodeRootfs(join(work, 'root'), { user: '10001:10001' });
      await writeRootfsTar(join(work, 'root'), join(work, 'rootfs.tar'));
      const image = await client.importImage(join(work, 'rootfs.tar'), { repository: 'svc-test/kill', tag: 'x', changes: ['USER 10001:10001'] });
      const service = await client.createService(testService(image, { name: 'svc-test-sleeper', args: ['-e', 'setInterval(() => {}, 1000)'] }));
      for (let i = 0; i < 240 && !(await client.listTasks({ service })).some((task) => task.Status.State === 'running'); i++)
        await new Promise((resolve) => setTimeout(resolve, 250));
      const containerd = containerdPid(engine);
      process.kill(engine.pid, 'SIGKILL');
      for (let i = 0; i < 50 && alive(engine.pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const survivors = processesUnder(dirname(engine.socketPath));
      // The shim and the task's own processes outlive dockerd; stop() must find them by the temp dir.
      expect(survivors.length).toBeGreaterThanOrEqual(2);
      await engine.stop();
      expect(await leftovers(engine, containerd)).toEqual([]);
      expect(survivors.filter(alive)).toEqual([]);
    } finally {
      await engine.stop();
      await rm(work, { recursive: true, force: true });
    }
  }, 180_000);
});

describe.skipIf(gate.skip)('two-node test swarm', () => {
  let engine: SwarmEngine;
  let work: string;
  let client: EngineClient;
  let image: string;
  beforeAll(async () => {
    gate.assertPresent();
    const started = Date.now();
    engine = await startSwarmEngine({ workers: 1 });
    console.log(`manager and worker started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    work = await mkdtemp(join(tmpdir(), 'svc-engine-nodes-'));
    client = createEngineClient({ dockerHost: engine.dockerHost });
    await assembleNodeRootfs(join(work, 'root'), { user: '10001:10001' });
    await writeRootfsTar(join(work, 'root'), join(work, 'rootfs.tar'));
    image = await client.importImage(join(work, 'rootfs.tar'), { repository: 'svc-test/nodes', tag: 'x', changes: ['USER 10001:10001'] });
  }, 180_000);
  afterAll(async () => {
    await engine?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('joins the worker from its own namespace on the shared bridge, at the next address', async () => {
    const [worker] = engine.workers;
    expect(worker).toBeDefined();
    const k = engine.nodeAddress.split('.')[2];
    expect(engine.hostAddress).toBe(`10.213.${k}.1`);
    expect(engine.nodeAddress).toBe(`10.213.${k}.2`);
    expect(worker!.nodeAddress).toBe(`10.213.${k}.3`);
    expect(worker!.netns).not.toBe(engine.netns);
    const namespaces = new Set([readlinkSync('/proc/self/ns/net'), readlinkSync(`/proc/${engine.pid}/ns/net`), readlinkSync(`/proc/${worker!.pid}/ns/net`)]);
    expect(namespaces.size).toBe(3);
    const nodes = await client.swarmNodes();
    expect(nodes.map((n) => [n.id, n.role, n.state, n.address]).sort()).toEqual(
      [
        [engine.nodeId, 'manager', 'ready', engine.nodeAddress],
        [worker!.nodeId, 'worker', 'ready', worker!.nodeAddress],
      ].sort(),
    );
    const info = JSON.parse((await get(worker!.socketPath, '/info')).body) as { Swarm: { LocalNodeState: string; ControlAvailable: boolean } };
    expect(info.Swarm).toMatchObject({ LocalNodeState: 'active', ControlAvailable: false });
  });

  it('shares an image to the worker under the same id; a task there answers the host on the worker address', async () => {
    const worker = engine.workers[0]!;
    expect((await get(worker.socketPath, `/images/${image}/json`)).status).toBe(404);
    await engine.shareImage(image);
    await engine.shareImage(image); // already there: nothing to do
    expect((await get(worker.socketPath, `/images/${image}/json`)).status).toBe(200);
    // A host-mode port is bound through the task's network gateway: without a network it has no PortStatus.
    await client.createNetwork({ name: 'svc-test-nodes', labels: {} });
    const server = "require('http').createServer((q, s) => s.end(require('os').hostname())).listen(3000, '0.0.0.0')";
    const service = await client.createService(
      testService(image, {
        name: 'svc-test-web',
        args: ['-e', server],
        network: 'svc-test-nodes',
        constraints: [`node.id==${worker.nodeId}`],
        ports: [{ Protocol: 'tcp', TargetPort: 3000, PublishMode: 'host' }],
      }),
    );
    const task = await until('a running task with a published port', async () =>
      (await client.listTasks({ service })).find((t) => t.Status.State === 'running' && publishedPort(t) !== null),
    );
    expect(task.NodeID).toBe(worker.nodeId);
    const answer = await until('an answer on the worker address', () =>
      fetch(`http://${worker.nodeAddress}:${publishedPort(task)}/`, { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.text(),
        () => undefined,
      ),
    );
    expect(answer).toMatch(/^[0-9a-f]{12}$/); // the task's container id as its hostname
  }, 120_000);

  it('carries overlay traffic between tasks on different nodes (dnsrr: by service name)', async () => {
    const worker = engine.workers[0]!;
    const probe =
      "setInterval(() => require('http').get('http://svc-test-web:3000/', (r) => r.on('data', (b) => console.log('answer ' + b))).on('error', (e) => console.log('error ' + e.code)), 500)";
    const service = await client.createService(
      testService(image, { name: 'svc-test-probe', args: ['-e', probe], network: 'svc-test-nodes', constraints: [`node.id==${engine.nodeId}`] }),
    );
    const line = await until(
      'the probe reaching the web task',
      async () => (await client.serviceLogs(service, { tail: 5 })).match(/^answer [0-9a-f]{12}$/m)?.[0],
    );
    const [webTask] = await client.listTasks({ service: 'svc-test-web', desiredState: 'running' });
    expect(webTask?.NodeID).toBe(worker.nodeId);
    expect(line).toBe(`answer ${webTask?.Status.ContainerStatus?.ContainerID?.slice(0, 12)}`);
    await client.removeService(service);
  }, 120_000);

  it('addSwarmWorker joins one more worker at the address after', async () => {
    const started = Date.now();
    const second = await addSwarmWorker(engine);
    console.log(`second worker joined in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(engine.workers).toEqual([expect.anything(), second]);
    expect(second.nodeAddress).toBe(engine.nodeAddress.replace(/\.2$/, '.4'));
    expect((await client.swarmNodes()).find((n) => n.id === second.nodeId)).toMatchObject({ role: 'worker', state: 'ready', address: second.nodeAddress });
  }, 120_000);
});

describe.skipIf(gate.skip)('two-node test swarm stop', () => {
  beforeAll(() => gate.assertPresent());

  it('leaves nothing of either node, also when the worker dockerd was killed hard under a running task', async () => {
    const engine = await startSwarmEngine({ workers: 1 });
    const work = await mkdtemp(join(tmpdir(), 'svc-engine-nodes-kill-'));
    try {
      const worker = engine.workers[0]!;
      const client = createEngineClient({ dockerHost: engine.dockerHost });
      await assembleNodeRootfs(join(work, 'root'), { user: '10001:10001' });
      await writeRootfsTar(join(work, 'root'), join(work, 'rootfs.tar'));
      const image = await client.importImage(join(work, 'rootfs.tar'), { repository: 'svc-test/nodes-kill', tag: 'x', changes: ['USER 10001:10001'] });
      await engine.shareImage(image);
      const service = await client.createService(
        testService(image, { name: 'svc-test-sleeper', args: ['-e', 'setInterval(() => {}, 1000)'], constraints: [`node.id==${worker.nodeId}`] }),
      );
      for (let i = 0; i < 240 && !(await client.listTasks({ service })).some((task) => task.Status.State === 'running'); i++)
        await new Promise((resolve) => setTimeout(resolve, 250));
      const containerds = [containerdPid(engine), containerdPidOf(worker)];
      process.kill(worker.pid, 'SIGKILL');
      for (let i = 0; i < 50 && alive(worker.pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const survivors = processesUnder(dirname(worker.socketPath));
      expect(survivors.length).toBeGreaterThanOrEqual(2); // the worker's containerd, shim and task outlive it
      await engine.stop();
      expect(await leftovers(engine, containerds)).toEqual([]);
      expect(survivors.filter(alive)).toEqual([]);
    } finally {
      await engine.stop();
      await rm(work, { recursive: true, force: true });
    }
  }, 180_000);
});

/** Poll `probe` every 250 ms for up to 60 s until it yields a value. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 240; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: not within 60 s`);
}

/** One task of `image` running node with `args`. */
function testService(
  image: string,
  options: { name: string; args: string[]; network?: string; constraints?: string[]; ports?: EngineServiceSpec['EndpointSpec']['Ports'] },
): EngineServiceSpec {
  return {
    Name: options.name,
    Labels: {},
    TaskTemplate: {
      ContainerSpec: {
        Image: image,
        Labels: {},
        Command: ['/usr/bin/node'],
        Args: options.args,
        Env: [],
        Dir: '/',
        User: '10001:10001',
        ReadOnly: true,
        Init: true,
        CapabilityDrop: ['ALL'],
        CapabilityAdd: [],
        Ulimits: [],
        Mounts: [],
        Secrets: [],
        StopGracePeriod: 1_000_000_000,
        StopSignal: 'SIGTERM',
      },
      Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 128 * 1024 * 1024, Pids: 50 } },
      RestartPolicy: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
      Placement: { Constraints: options.constraints ?? [] },
      Networks: options.network ? [{ Target: options.network }] : [],
      ForceUpdate: 0,
    },
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: { Mode: 'dnsrr', Ports: options.ports ?? [] },
  };
}
