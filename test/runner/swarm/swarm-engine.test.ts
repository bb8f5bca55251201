// The real-engine suites' throwaway swarm: it starts, is a ready single-node manager, and stop()
// leaves nothing behind, even when dockerd was killed and left its mounts, shims and task processes.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execChecked, execCommand } from '../../../src/core/exec.js';
import { assembleNodeRootfs, buildTarCommand } from '../../../runner/container/node-rootfs.js';
import { createEngineClient } from '../../../runner/swarm/engine-client.js';
import type { EngineServiceSpec } from '../../../runner/swarm/engine-spec.js';
import { alive } from '../../support/process-alive.js';
import { startSwarmEngine, swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';
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

/** Everything an engine may leave behind, as a list of what is still there. */
async function leftovers(engine: SwarmEngine, containerdPid: number): Promise<string[]> {
  const dir = dirname(engine.socketPath);
  const k = engine.nodeAddress.split('.')[2];
  return [
    alive(engine.pid) ? `dockerd ${engine.pid}` : '',
    containerdPid && alive(containerdPid) ? `containerd ${containerdPid}` : '',
    ...processesUnder(dir).map((pid) => `process ${pid}`),
    ...mountsUnder(dir),
    existsSync(`/run/netns/${engine.netns}`) ? `netns ${engine.netns}` : '',
    (await linkExists(`svcsw${k}h`)) ? `veth svcsw${k}h` : '',
    existsSync(dir) ? `dir ${dir}` : '',
  ].filter(Boolean);
}

const containerdPid = (engine: SwarmEngine): number => Number(readFileSync(join(dirname(engine.socketPath), 'exec/containerd/containerd.pid'), 'utf8'));

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
    const info = JSON.parse((await get(engine.socketPath, '/info')).body) as { Swarm: { LocalNodeState: string; ControlAvailable: boolean; NodeID: string; NodeAddr: string } };
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
      await execChecked(buildTarCommand(join(work, 'root'), join(work, 'rootfs.tar')));
      const image = await client.importImage(join(work, 'rootfs.tar'), { repository: 'svc-test/kill', tag: 'x', changes: ['USER 10001:10001'] });
      const service = await client.createService(sleeperService(image));
      for (let i = 0; i < 240 && !(await client.listTasks({ service })).some((task) => task.Status.State === 'running'); i++) await new Promise((resolve) => setTimeout(resolve, 250));
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

/** One task that only sleeps. */
function sleeperService(image: string): EngineServiceSpec {
  return {
    Name: 'svc-test-sleeper',
    Labels: {},
    TaskTemplate: {
      ContainerSpec: { Image: image, Labels: {}, Command: ['/usr/bin/node'], Args: ['-e', 'setInterval(() => {}, 1000)'], Env: [], Dir: '/', User: '10001:10001', ReadOnly: true, Init: true, CapabilityDrop: ['ALL'], CapabilityAdd: [], Ulimits: [], Mounts: [], Secrets: [], StopGracePeriod: 1_000_000_000, StopSignal: 'SIGTERM' },
      Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 128 * 1024 * 1024, Pids: 50 } },
      RestartPolicy: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
      Placement: { Constraints: [] },
      Networks: [],
      ForceUpdate: 0,
    },
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: { Mode: 'dnsrr', Ports: [] },
  };
}
