// One deploy/rollback contract, run against every local driver (Litestream-style: the same scenarios
// for each backend): a code-only deploy, a migration deploy, a failed candidate that keeps the old
// release serving, a code-only rollback and a restore-data rollback, each under steady traffic through
// the ingress (no failed request) and followed by a check of who answers through the project's host.
// Drivers whose host component is missing skip with a warning, but fail under CI.
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../../src/core/command.js';
import { execCommand } from '../../src/core/exec.js';
import { buildNodeImage } from '../../runner/container/build-node-image.js';
import { projectNetworkName } from '../../runner/container/network-args.js';
import { commandComponent, requireComponents, type ComponentGate } from '../support/require-components.js';
import { podmanGate } from '../runner/container/podman-gate.js';
import { packFixture, removeDataDir, startPlane, type Artifact, type Plane } from './release-support.js';
import { steadyTraffic, type TrafficReport } from './steady-traffic.js';
import { startRunner, type RunnerProcess } from '../runner/agent/runner-processes.js';
import { startSwarmEngine, swarmEngineGate, type SwarmEngine } from '../support/swarm-engine.js';

const CONTAINER_IMAGE = 'localhost/svc-node-test:driver-contract';

/** A driver as the suite runs it: the platform settings that select it and its host components. */
interface ReleaseDriver {
  name: string;
  /** SVC_* settings of the control plane that select the driver. */
  env: Record<string, string>;
  /** Probed once when the suite is collected; null = nothing to probe. */
  gate: () => ComponentGate | null;
  /** Before the plane starts (e.g. build the container image). */
  prepare?: () => Promise<void>;
  /** After the plane listens (e.g. start a runner node and place the project); returns what stops it before the plane closes. */
  attach?: (plane: Plane, origin: string, work: string) => Promise<() => Promise<void>>;
  /** After the plane stopped (e.g. remove containers and the project network). */
  cleanup?: (plane: Plane) => Promise<void>;
  /** Last, whether or not the plane started (e.g. stop what prepare started). */
  teardown?: () => Promise<void>;
  /** Set while a driver cannot run here yet: the suite lists it as a todo (never a silent skip). */
  pending?: string;
}

const podman = (args: string[]) => execCommand(command('podman', ['--runtime', 'runc', ...args]));

/** The swarm driver's throwaway engine; its settings are filled in once it runs. */
let swarm: SwarmEngine | undefined;
const swarmEnv: Record<string, string> = { SVC_DRIVER: 'swarm' };

const drivers: ReleaseDriver[] = [
  {
    name: 'sandbox runner (default)',
    env: {},
    gate: () =>
      requireComponents('driver contract: sandbox runner', [
        commandComponent('bubblewrap', ['bwrap', '--version']),
        commandComponent('slirp4netns', ['slirp4netns', '--version']),
      ]),
  },
  {
    name: 'podman container runner (SVC_RUNNER=container)',
    env: { SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: CONTAINER_IMAGE },
    gate: () => podmanGate('driver contract: container runner'),
    prepare: async () => {
      await buildNodeImage({ image: CONTAINER_IMAGE });
    },
    async cleanup(plane) {
      const listed = await podman(['ps', '-a', '--filter', `label=svc.project=${plane.project.id}`, '--format', '{{.Names}}']);
      for (const name of listed.stdout.split('\n').filter(Boolean)) await podman(['rm', '--force', '--time', '0', name]);
      await podman(['network', 'rm', '--force', projectNetworkName(plane.project.id)]);
    },
  },
  {
    name: 'plain process runner (SVC_SANDBOX=off)',
    env: { SVC_SANDBOX: 'off' },
    gate: () => null,
  },
  // The project as a Docker swarm service (SVC_DRIVER=swarm) on a throwaway single-node swarm in its own
  // network namespace; the plane builds the base image at start-up and serves releases to the tasks.
  {
    name: 'docker swarm (SVC_DRIVER=swarm)',
    env: swarmEnv,
    gate: () => swarmEngineGate('driver contract: docker swarm'),
    prepare: async () => {
      swarm = await startSwarmEngine();
      Object.assign(swarmEnv, { DOCKER_HOST: swarm.dockerHost, SVC_SWARM_ENDPOINT: `http://${swarm.hostAddress}:0`, SVC_SWARM_DRAIN_MS: '2000' });
    },
    teardown: async () => {
      await swarm?.stop();
    },
  },
  // The project placed on a runner node: a real `svc-runner agent` process with its local provider
  // (plain processes), leasing from this plane; the plane's ingress routes the project to the node.
  {
    name: 'runner node (svc-runner agent, local provider)',
    env: { SVC_NODE_LEASE_MS: '3000', SVC_NODE_OPERATION_LEASE_MS: '10000', SVC_NODE_RETRY_DELAY_MS: '200' },
    gate: () => null,
    attach: async (plane, origin, work) => {
      const agent = await startRunnerNode(plane, origin, join(work, 'node'));
      return async () => {
        expect(await agent.stop(30_000)).toBe(0);
      };
    },
  },
];

/** Enroll a runner node (`svc-runner agent`) with this plane and place the plane's project on it. */
async function startRunnerNode(plane: Plane, origin: string, data: string): Promise<RunnerProcess> {
  const minted = await plane.app.inject({ method: 'POST', url: '/api/admin/nodes/registration-tokens', headers: plane.owner.headers(), payload: {} });
  expect(minted.statusCode, minted.body).toBe(201);
  const agent = await startRunner(
    ['agent'],
    {
      SVC_CONTROL_URL: origin,
      SVC_RUNNER_NODE_ID: 'contract-node',
      SVC_RUNNER_LABELS: 'role=contract',
      SVC_RUNNER_CREDENTIALS: join(data, 'credentials.json'),
      SVC_RUNNER_DATA_DIR: data,
      SVC_RUNNER_REGISTRATION_TOKEN: (minted.json() as { token: string }).token,
      SVC_RUNNER: 'process',
      SVC_SANDBOX: 'off',
      SVC_RUNNER_RETRY_DELAY_MS: '50',
      SVC_RUNNER_TIMEOUT_MS: '60000',
    },
    /svc-runner agent: node \S+ ready/,
  );
  const placed = await plane.app.inject({
    method: 'PUT',
    url: `/api/projects/${plane.project.id}/placement`,
    headers: plane.owner.headers(),
    payload: { labels: { role: 'contract' } },
  });
  expect(placed.statusCode, placed.body).toBe(200);
  return agent;
}

interface Released {
  id: string;
  status: string;
  failure?: { step: string; code: string };
}

describe.each(drivers)('release contract: $name', (driver) => {
  if (driver.pending) {
    it.todo(`deploy/rollback contract (${driver.pending})`);
    return;
  }
  const gate = driver.gate();
  describe.skipIf(gate?.skip ?? false)('deploys and rollbacks under steady traffic', () => {
    let plane: Plane;
    let work: string;
    let origin: string;
    let detach: (() => Promise<void>) | undefined;
    const art: Record<string, Artifact> = {};
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      gate?.assertPresent();
      work = await mkdtemp(join(tmpdir(), 'svc-driver-contract-'));
      await driver.prepare?.();
      plane = await startPlane({ env: driver.env });
      await plane.app.listen({ host: '127.0.0.1', port: 0 });
      origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
      detach = await driver.attach?.(plane, origin, work);
      art.v1 = await packFixture('healthy', work);
      art.v1b = await packFixture('healthy', work, async (_dir, config) => ({ ...config, env: { ...config.env, FLAVOUR: 'b' } }));
      art.v2 = await packFixture('healthy-v2', work);
      art.v2b = await packFixture('healthy-v2', work, async (_dir, config) => ({ ...config, env: { ...config.env, FLAVOUR: 'b' } }));
      art.failing = await packFixture('failing-health', work, async (_dir, config) => ({ ...config, health: { ...config.health, timeoutMs: 2_000 } }));
    }, 240_000);
    afterAll(async () => {
      await detach?.();
      await plane?.close();
      if (plane) await driver.cleanup?.(plane);
      if (plane) await removeDataDir(plane.dataDir);
      if (work) await removeDataDir(work);
      await driver.teardown?.();
    }, 120_000);

    const host = () => `${plane.project.slug}.localhost`;
    const viaIngress = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await request(`${origin}${path}`, {
        method,
        headers: { host: host(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
    };
    /** Who answers through the project's host right now. */
    const serving = async (): Promise<string> => {
      const { status, json } = await viaIngress('GET', '/');
      expect(status).toBe(200);
      return json.release as string;
    };
    const notes = async (): Promise<string[]> => ((await viaIngress('GET', '/notes')).json.notes as { text: string }[]).map((n) => n.text);
    /** Run `step` under steady traffic; no request may fail. */
    const underTraffic = async <T>(step: () => Promise<T>): Promise<{ result: T; seen: TrafficReport }> => {
      const traffic = steadyTraffic(origin, host());
      const began = performance.now();
      const result = await step();
      const stepMs = Math.round(performance.now() - began);
      await new Promise((r) => setTimeout(r, 200));
      const seen = await traffic.stop();
      // Grouped, with when they happened against the step's length, so a failure says where it fell.
      expect(seen.failureSpans(), `step took ${stepMs} ms`).toEqual([]);
      expect(seen.failures).toEqual([]);
      expect(seen.ok).toBeGreaterThan(0);
      return { result, seen };
    };
    const deploy = async (artifact: Artifact): Promise<Released> => (await plane.upload(artifact)).json().release as Released;
    const rollback = async (releaseId: string, restoreData = false) => {
      const res = await plane.api(
        'POST',
        `/api/projects/${plane.project.id}/rollback`,
        restoreData ? { releaseId, restoreData, confirm: `restore ${plane.project.slug}` } : { releaseId },
      );
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { release: Released; restoredData: boolean };
    };

    it('first deploy, then a code-only deploy switches with no failed request', async () => {
      const first = await deploy(art.v1!);
      expect(first.status).toBe('active');
      ids.v1 = first.id;
      expect(await serving()).toBe(ids.v1);
      expect((await viaIngress('POST', '/notes', { text: 'one' })).status).toBe(201);

      const { result, seen } = await underTraffic(() => deploy(art.v1b!));
      expect(result.status).toBe('active');
      ids.v1b = result.id;
      expect(seen.releases.has(ids.v1b)).toBe(true);
      expect(await serving()).toBe(ids.v1b);
    }, 120_000);

    it('a failing candidate keeps the active release serving', async () => {
      const { result, seen } = await underTraffic(() => deploy(art.failing!));
      expect(result).toMatchObject({ status: 'failed', failure: { step: 'health', code: 'SVC_HEALTH_CHECK_FAILED' } });
      expect([...seen.releases]).toEqual([ids.v1b]);
      expect(await serving()).toBe(ids.v1b);
    }, 120_000);

    it('a migration deploy holds requests instead of failing them', async () => {
      const { result, seen } = await underTraffic(() => deploy(art.v2!));
      expect(result.status).toBe('active');
      ids.v2 = result.id;
      expect(seen.releases.has(ids.v2)).toBe(true);
      expect(await serving()).toBe(ids.v2);
      expect(await notes()).toEqual(['one']);
    }, 120_000);

    it('a code-only rollback switches with no failed request', async () => {
      const { result, seen } = await underTraffic(() => rollback(ids.v1b!));
      expect(result).toMatchObject({ release: { id: ids.v1b, status: 'active' }, restoredData: false });
      expect(seen.releases.has(ids.v1b!)).toBe(true);
      expect(await serving()).toBe(ids.v1b);
      expect(await notes()).toEqual(['one']);
    }, 120_000);

    it('a restore-data rollback brings the pre-deploy data back, with requests held meanwhile', async () => {
      const again = await deploy(art.v2b!);
      expect(again.status).toBe('active');
      expect(await serving()).toBe(again.id);
      expect((await viaIngress('POST', '/notes', { text: 'lost' })).status).toBe(201);

      const { result, seen } = await underTraffic(() => rollback(ids.v1b!, true));
      expect(result).toMatchObject({ release: { id: ids.v1b, status: 'active' }, restoredData: true });
      expect(seen.releases.has(ids.v1b!)).toBe(true);
      expect(await serving()).toBe(ids.v1b);
      expect(await notes()).toEqual(['one']);
    }, 120_000);
  });
});
