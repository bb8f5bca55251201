// Every EngineClient method against a real single-node swarm (test/support/swarm-engine.ts), with a
// node-only image imported from a root filesystem built here: no registry anywhere.
import Docker from 'dockerode';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { assembleNodeRootfs, writeRootfsTar } from '../../../runner/container/node-rootfs.js';
import { createEngineClient, type EngineClient } from '../../../runner/swarm/engine-client.js';
import type { EngineServiceSpec } from '../../../runner/swarm/engine-spec.js';
import { startSwarmEngine, swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';

const gate = swarmEngineGate('swarm engine client');
const LABELS = { 'svc.test': 'engine-client' };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** A long-running node service that prints its uid, a secret and one line on each stream. */
function nodeService(name: string, image: string, network: string, secret: { id: string; name: string }, volume: string, env: string[]): EngineServiceSpec {
  const script =
    "console.log('out uid=' + process.getuid() + ' secret=' + require('fs').readFileSync('/run/secrets/token', 'utf8')); console.error('err ' + process.env.GREETING); setInterval(() => {}, 1000);";
  return {
    Name: name,
    Labels: LABELS,
    TaskTemplate: {
      ContainerSpec: {
        Image: image,
        Labels: LABELS,
        Command: ['/usr/bin/node'],
        Args: ['-e', script],
        Env: env,
        Dir: '/app',
        User: '10001:10001',
        ReadOnly: true,
        Init: true,
        CapabilityDrop: ['ALL'],
        CapabilityAdd: [],
        Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }],
        Mounts: [{ Type: 'volume', Source: volume, Target: '/data', VolumeOptions: { NoCopy: true, Labels: LABELS } }],
        Secrets: [{ SecretID: secret.id, SecretName: secret.name, File: { Name: 'token', UID: '10001', GID: '10001', Mode: 0o400 } }],
        StopGracePeriod: 1_000_000_000,
        StopSignal: 'SIGTERM',
      },
      Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 256 * 1024 * 1024, Pids: 100 } },
      RestartPolicy: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
      Placement: { Constraints: [] },
      Networks: [{ Target: network }],
      ForceUpdate: 0,
    },
    Mode: { Replicated: { Replicas: 1 } },
    // A short monitor keeps the update and rollback below quick.
    UpdateConfig: { Parallelism: 1, Delay: 0, FailureAction: 'pause', Monitor: 500_000_000, MaxFailureRatio: 0, Order: 'stop-first' },
    RollbackConfig: { Parallelism: 1, Delay: 0, FailureAction: 'pause', Monitor: 500_000_000, MaxFailureRatio: 0, Order: 'stop-first' },
    EndpointSpec: { Mode: 'dnsrr', Ports: [] },
  };
}

describe.skipIf(gate.skip)('EngineClient against a real swarm', () => {
  let engine: SwarmEngine;
  let client: EngineClient;
  let work: string;
  let imageId: string;

  beforeAll(async () => {
    gate.assertPresent();
    engine = await startSwarmEngine();
    client = createEngineClient({ dockerHost: engine.dockerHost });
    work = await mkdtemp(join(tmpdir(), 'svc-engine-client-'));
    await assembleNodeRootfs(join(work, 'root'), { user: '10001:10001' });
    await writeRootfsTar(join(work, 'root'), join(work, 'rootfs.tar'));
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('reads the engine version and the swarm node', async () => {
    expect(await client.version()).toMatchObject({ apiVersion: '1.41', version: expect.stringMatching(/^20\.10\./) });
    expect(await client.swarmNodes()).toEqual([
      { id: engine.nodeId, address: engine.nodeAddress, hostname: expect.any(String), role: 'manager', state: 'ready', availability: 'active', labels: {} },
    ]);
  });

  it('imports a root filesystem as an image with its changes, and inspects it by id and name', async () => {
    imageId = await client.importImage(join(work, 'rootfs.tar'), { repository: 'svc-test/node', tag: 'engine-client', changes: ['USER 10001:10001'] });
    expect(imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await client.inspectImage(imageId)).toEqual({ id: imageId });
    expect(await client.inspectImage('svc-test/node:engine-client')).toEqual({ id: imageId });
    expect(await client.inspectImage('svc-test/node:absent')).toBeNull();
    const config = (await new Docker({ socketPath: engine.socketPath }).getImage(imageId).inspect()).Config;
    expect(config.User).toBe('10001:10001');
  }, 60_000);

  it('creates an overlay network that is neither attachable nor internal, refuses a duplicate, removes it idempotently', async () => {
    const id = await client.createNetwork({ name: 'svc-test-net-a', labels: LABELS });
    expect(await client.hasNetwork('svc-test-net-a')).toBe(true);
    expect(await client.hasNetwork('svc-test-net')).toBe(false);
    // The manager's allocator fills in a swarm network's driver shortly after the create returned.
    const network = new Docker({ socketPath: engine.socketPath }).getNetwork(id);
    let inspected = await network.inspect();
    for (let i = 0; i < 50 && !inspected.Driver; i++) {
      await new Promise((r) => setTimeout(r, 100));
      inspected = await network.inspect();
    }
    expect(inspected).toMatchObject({ Driver: 'overlay', Scope: 'swarm', Attachable: false, Internal: false, Labels: LABELS });
    await expect(client.createNetwork({ name: 'svc-test-net-a', labels: LABELS })).rejects.toMatchObject({
      code: 'SVC_SWARM_REQUEST_FAILED',
      details: { status: 409 },
    });
    await client.removeNetwork('svc-test-net-a');
    expect(await client.hasNetwork('svc-test-net-a')).toBe(false);
    await client.removeNetwork('svc-test-net-a');
  });

  it('creates, lists by label and removes secrets; the value never comes back', async () => {
    const id = await client.createSecret({ name: 'svc-test-secret-a', labels: { ...LABELS, 'svc.kind': 'a' }, data: Buffer.from('value-a') });
    await client.createSecret({ name: 'svc-test-secret-b', labels: { ...LABELS, 'svc.kind': 'b' }, data: Buffer.from('value-b') });
    expect(await client.listSecrets({ 'svc.kind': 'a' })).toEqual([{ id, name: 'svc-test-secret-a', labels: { ...LABELS, 'svc.kind': 'a' } }]);
    expect((await client.listSecrets(LABELS)).map((secret) => secret.name).sort()).toEqual(['svc-test-secret-a', 'svc-test-secret-b']);
    expect(JSON.stringify(await client.listSecrets(LABELS))).not.toContain('value-');
    await client.removeSecret(id);
    await client.removeSecret(id);
    expect(await client.listSecrets({ 'svc.kind': 'a' })).toEqual([]);
  });

  it('runs a service: tasks, logs of both streams, update, rollback, listing, removal, and its volume', async () => {
    const network = 'svc-test-net-s';
    await client.createNetwork({ name: network, labels: LABELS });
    const secretId = await client.createSecret({ name: 'svc-test-token', labels: LABELS, data: Buffer.from('tok-1') });
    const spec = nodeService('svc-test-service', imageId, network, { id: secretId, name: 'svc-test-token' }, 'svc-test-vol', ['GREETING=one']);
    const id = await client.createService(spec);

    const running = await until('task running', async () =>
      (await client.listTasks({ service: id, desiredState: 'running' })).find((task) => task.Status.State === 'running'),
    );
    expect(running.ServiceID).toBe(id);
    expect(running.NodeID).toBe(engine.nodeId);
    expect((await client.listTasks({ labels: LABELS })).map((task) => task.ID)).toContain(running.ID);
    const logs = await until('both log lines', async () => {
      const text = await client.serviceLogs(id, { tail: 20 });
      return text.includes('err one') && text.includes('out ') ? text : undefined;
    });
    expect(logs).toContain('out uid=10001 secret=tok-1');

    const before = await client.inspectService('svc-test-service');
    expect(before).toMatchObject({ id, spec: { Name: 'svc-test-service', Labels: LABELS } });
    expect(before?.previousSpec).toBeUndefined();
    await client.updateService(
      id,
      before!.version,
      nodeService('svc-test-service', imageId, network, { id: secretId, name: 'svc-test-token' }, 'svc-test-vol', ['GREETING=two']),
    );
    await expect(client.updateService(id, before!.version, spec)).rejects.toMatchObject({ code: 'SVC_SWARM_REQUEST_FAILED' });
    const updated = await until('update completed', async () => {
      const service = await client.inspectService(id);
      return service?.updateStatus?.State === 'completed' ? service : undefined;
    });
    expect(updated.version).toBeGreaterThan(before!.version);
    expect(JSON.stringify(updated.spec)).toContain('GREETING=two');
    expect(JSON.stringify(updated.previousSpec)).toContain('GREETING=one');
    await until('new task logs', async () => ((await client.serviceLogs(id, { tail: 50 })).includes('err two') ? true : undefined));

    await client.updateService(id, updated.version, spec, { rollback: true });
    const rolledBack = await until('rollback completed', async () => {
      const service = await client.inspectService(id);
      return service?.updateStatus?.State === 'rollback_completed' ? service : undefined;
    });
    expect(JSON.stringify(rolledBack.spec)).toContain('GREETING=one');
    expect((await client.listServices(LABELS)).map((service) => service.id)).toEqual([id]);
    expect(await client.listServices({ 'svc.test': 'other' })).toEqual([]);
    expect(await client.listVolumes(LABELS)).toEqual([{ name: 'svc-test-vol', labels: LABELS }]);

    await client.removeService(id);
    await client.removeService(id);
    expect(await client.inspectService(id)).toBeNull();
    // The task's container goes away shortly after the service: until then the volume is in use.
    await until('volume removed', async () => {
      try {
        await client.removeVolume('svc-test-vol', { force: false });
        return true;
      } catch (error) {
        if (isSvcError(error, 'SVC_SWARM_REQUEST_FAILED') && error.details?.status === 409) return undefined;
        throw error;
      }
    });
    expect(await client.listVolumes(LABELS)).toEqual([]);
    await client.removeVolume('svc-test-vol', { force: true });
    await client.removeSecret(secretId);
    await until('network removed', async () => {
      try {
        await client.removeNetwork(network);
        return true;
      } catch {
        return undefined;
      }
    });
  }, 180_000);

  it('an engine that left its swarm is unavailable for swarm work, and so is a missing socket', async () => {
    await expect(createEngineClient({ dockerHost: `unix://${work}/absent.sock` }).version()).rejects.toMatchObject({ code: 'SVC_SWARM_UNAVAILABLE' });
    const other = await startSwarmEngine();
    try {
      await new Promise<void>((resolve, reject) =>
        request({ socketPath: other.socketPath, method: 'POST', path: '/v1.41/swarm/leave?force=true' }, (res) => (res.resume(), res.on('end', resolve)))
          .on('error', reject)
          .end(),
      );
      const left = createEngineClient({ dockerHost: other.dockerHost });
      expect((await left.version()).apiVersion).toBe('1.41');
      await expect(left.listServices(LABELS)).rejects.toMatchObject({ code: 'SVC_SWARM_UNAVAILABLE', status: 503 });
      await expect(left.swarmNodes()).rejects.toMatchObject({ code: 'SVC_SWARM_UNAVAILABLE' });
    } finally {
      await other.stop();
    }
  }, 120_000);
});
