// Real podman: two projects' containers cannot reach each other directly (not by container IP, not
// through the host gateway to the other's published port, not over loopback), the host reaches both
// through their published loopback ports (the ingress path), and the platform's loopback listeners are
// out of reach. A same-project peer proves the probe itself connects when nothing blocks it.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';
import type { AppStartSpec, RunningApp } from '../../../runner/app-runner.js';
import { buildNodeImage } from '../../../runner/container/build-node-image.js';
import { ContainerRunner } from '../../../runner/container/container-runner.js';
import { projectNetworkName } from '../../../runner/container/network-args.js';
import { checkHealth } from '../../../runner/health-check.js';
import { LogStore } from '../../../runner/log-store.js';
import { podmanGate } from './podman-gate.js';

const IMAGE = 'localhost/svc-node-test:network';
const gate = podmanGate('container network isolation tests');
const podman = (...args: string[]) => execCommand(command('podman', ['--runtime', 'runc', ...args]));

describe.skipIf(gate.skip)('container network isolation (real podman)', () => {
  let root: string;
  let runner: ContainerRunner;
  let platformListener: Server;
  const apps: RunningApp[] = [];
  const projectA = `p-net-a-${process.pid}`;
  const projectB = `p-net-b-${process.pid}`;

  beforeAll(async () => {
    gate.assertPresent();
    root = await mkdtemp(join(tmpdir(), 'svc-container-net-'));
    await buildNodeImage({ image: IMAGE });
    runner = new ContainerRunner({
      image: IMAGE,
      runsDir: join(root, 'runs'),
      logs: new LogStore({ dir: join(root, 'logs') }),
      stopGraceMs: 2000,
      tailPollMs: 20,
    });
    // Stands in for the control plane and other platform services listening on host loopback.
    platformListener = createServer((socket) => socket.end('platform'));
    await new Promise<void>((resolve) => platformListener.listen(0, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop({ graceMs: 500 });
    platformListener?.close();
    for (const project of [projectA, projectB]) await runner?.removeProjectNetwork(project).catch(() => undefined);
    await podman('rmi', '--force', IMAGE);
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  async function start(projectId: string, releaseId: string): Promise<RunningApp> {
    const releaseDir = join(root, projectId, releaseId);
    await cp(join(import.meta.dirname, 'apps'), releaseDir, { recursive: true });
    const dataDir = join(root, projectId, 'data');
    const spec: AppStartSpec = {
      projectId,
      releaseId,
      releaseDir,
      entry: 'reach-probe.mjs',
      dataDir,
      databasePath: join(dataDir, 'app.db'),
      env: {},
      secrets: {},
    };
    const app = await runner.start(spec);
    apps.push(app);
    expect((await checkHealth({ host: app.host, port: app.port, path: '/', timeoutMs: 20_000, exited: app.wait() })).ok).toBe(true);
    return app;
  }

  async function addressOf(app: RunningApp): Promise<{ ip: string; gateway: string; network: string }> {
    const inspect = await podman(
      'container',
      'inspect',
      '--format',
      '{{range $name, $n := .NetworkSettings.Networks}}{{$name}} {{$n.IPAddress}} {{$n.Gateway}}{{end}}',
      app.record().containerId!,
    );
    const [network = '', ip = '', gateway = ''] = inspect.stdout.trim().split(' ');
    return { ip, gateway, network };
  }

  /** What a TCP connect from inside `from` to host:port gives. */
  async function connectFrom(from: RunningApp, host: string, port: number): Promise<string> {
    return (await fetch(`http://127.0.0.1:${from.port}/connect?host=${host}&port=${port}`)).text();
  }

  it('blocks every direct path between two projects and keeps the ingress path', async () => {
    const a = await start(projectA, 'rel_a1');
    const a2 = await start(projectA, 'rel_a2');
    const b = await start(projectB, 'rel_b1');
    const [addrA, addrA2, addrB] = await Promise.all([addressOf(a), addressOf(a2), addressOf(b)]);
    expect(addrA.network).toBe(projectNetworkName(projectA));
    expect(addrA2.network).toBe(projectNetworkName(projectA));
    expect(addrB.network).toBe(projectNetworkName(projectB));
    expect(addrA.gateway).not.toBe(addrB.gateway);
    const platformPort = (platformListener.address() as { port: number }).port;

    const reach = {
      // Controls: the probe connects when nothing blocks it (itself, a peer of the same project).
      self: await connectFrom(a, addrA.ip, a.port),
      sameProjectPeer: await connectFrom(a2, addrA.ip, a.port),
      // Another project, directly and around the ingress, in both directions.
      otherContainerIp: await connectFrom(a, addrB.ip, b.port),
      otherContainerIpReverse: await connectFrom(b, addrA.ip, a.port),
      ownGatewayOtherPublishedPort: await connectFrom(a, addrA.gateway, b.port),
      otherGatewayOtherPublishedPort: await connectFrom(a, addrB.gateway, b.port),
      loopbackOtherPublishedPort: await connectFrom(a, '127.0.0.1', b.port),
      // The platform's loopback listeners through the host gateway.
      gatewayPlatformListener: await connectFrom(a, addrA.gateway, platformPort),
    };
    expect(reach).toEqual({
      self: 'connected',
      sameProjectPeer: 'connected',
      otherContainerIp: 'ETIMEDOUT',
      otherContainerIpReverse: 'ETIMEDOUT',
      ownGatewayOtherPublishedPort: 'ECONNREFUSED',
      otherGatewayOtherPublishedPort: 'ECONNREFUSED',
      loopbackOtherPublishedPort: 'ECONNREFUSED',
      gatewayPlatformListener: 'ECONNREFUSED',
    });
    // The ingress path: the host reaches each app on its published loopback port.
    for (const app of [a, b]) expect(await (await fetch(`http://127.0.0.1:${app.port}/`)).text()).toBe('ok');
  }, 90_000);

  it('creates the project network on the first start and removes it when the last container exits', async () => {
    const exists = async (projectId: string) => (await podman('network', 'exists', projectNetworkName(projectId))).exitCode === 0;
    expect(await exists(projectA)).toBe(true);
    const options = await podman('network', 'inspect', '--format', '{{.Options.isolate}} {{index .Labels "svc.network"}}', projectNetworkName(projectA));
    expect(options.stdout.trim()).toBe('true project');
    for (const app of apps.filter((x) => x.projectId === projectA)) await app.stop({ graceMs: 500 });
    // The removal runs right after the exit is observed.
    await expect.poll(() => exists(projectA), { timeout: 10_000 }).toBe(false);
    expect(await exists(projectB)).toBe(true);
  }, 60_000);
});
