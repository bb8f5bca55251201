// Where a project goes on a real two-node swarm (a manager and a worker, each dockerd in its own
// network namespace) behind a real control plane: with the worker labelled svc.apps=true the first
// deploy chooses it and records the choice before any job runs; a worker without the base image
// rejects the job's task and the deploy fails at once with SVC_SWARM_IMAGE_MISSING; the recorded
// choice survives a control-plane restart (even once the manager is an app node too), and once the
// image is loaded there the project's jobs and service run on the worker, which answers at its own
// address through the ingress.
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineClient } from '../../../runner/swarm/engine-client.js';
import { pinnedNode } from '../../../runner/swarm/project-placement.js';
import { swarmServiceName, swarmVolumeName } from '../../../runner/swarm/swarm-names.js';
import { isServing } from '../../../runner/swarm/task-observation.js';
import { engineCall } from '../../support/swarm-engine-daemon.js';
import { swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';
import { packFixture, startPlane, type Artifact, type Plane } from '../../releases/release-support.js';
import { startSwarmPlane, stopSwarmPlane } from './swarm-plane.js';

const gate = swarmEngineGate('swarm project placement');

/** Add a node spec label through the engine API (what `docker node update --label-add` does). */
async function labelNode(engine: SwarmEngine, nodeId: string, labels: Record<string, string>): Promise<void> {
  const node = JSON.parse((await engineCall(engine.socketPath, 'GET', `/nodes/${nodeId}`)).body) as {
    Version: { Index: number };
    Spec: { Labels?: Record<string, string> };
  };
  const res = await engineCall(engine.socketPath, 'POST', `/nodes/${nodeId}/update?version=${node.Version.Index}`, {
    ...node.Spec,
    Labels: { ...node.Spec.Labels, ...labels },
  });
  expect(res.status, res.body).toBe(200);
}

interface Released {
  id: string;
  status: string;
  failure?: { code: string; message: string };
}

describe.skipIf(gate.skip)('swarm project placement on two nodes', () => {
  let engine: SwarmEngine;
  let client: EngineClient;
  let plane: Plane;
  let work: string;
  let env: Record<string, string>;
  let image: string;
  let art: Artifact;

  const deploy = async (): Promise<Released> => {
    const res = await plane.upload(art);
    const release = (res.json() as { release?: Released }).release;
    if (!release) throw new Error(`upload answered ${res.statusCode}: ${res.body}`);
    return release;
  };
  const placements = async (): Promise<Record<string, string>> =>
    (JSON.parse(await readFile(join(plane.dataDir, 'swarm', 'placements.json'), 'utf8')) as { projects: Record<string, string> }).projects;

  beforeAll(async () => {
    gate.assertPresent();
    // The base image is built on the manager only, for now.
    ({ engine, client, plane, work, env, image } = await startSwarmPlane({
      workPrefix: 'svc-swarm-placement-',
      workers: 1,
      prepare: (started) => labelNode(started, started.workers[0]!.nodeId, { 'svc.apps': 'true' }),
      buildImage: true,
      fixedEndpoint: true,
      drainMs: 1000,
    }));
    art = await packFixture('healthy', work);
  }, 300_000);

  afterAll(() => stopSwarmPlane({ plane, engine, work }), 120_000);

  it('chooses the svc.apps=true worker, records it, and fails at once with SVC_SWARM_IMAGE_MISSING while the worker lacks the image', async () => {
    const started = Date.now();
    const res = await plane.upload(art);
    const seconds = (Date.now() - started) / 1000;
    console.log(`deploy to a node without the image refused in ${seconds.toFixed(1)} s`);
    // The upload's first job (the database footprint check) already runs on the chosen node.
    expect(res.statusCode, res.body).toBe(409);
    expect((res.json() as { error: unknown }).error).toMatchObject({
      code: 'SVC_SWARM_IMAGE_MISSING',
      message: expect.stringContaining(`node ${engine.workers[0]!.nodeId}`),
      details: { nodeId: engine.workers[0]!.nodeId, image },
    });
    expect(seconds).toBeLessThan(30); // not the start timeout (60 s) or a health timeout
    expect(await placements()).toEqual({ [plane.project.id]: engine.workers[0]!.nodeId });
    expect(await client.inspectService(swarmServiceName(plane.project.id, 'app'))).toBeNull();
  }, 120_000);

  it('keeps the recorded node across a restart; with the image loaded there, jobs and service run on the worker and it answers at its address', async () => {
    await plane.close();
    // A fresh choice could now take the manager (an app node too, holding no project): the record must win.
    await labelNode(engine, engine.nodeId, { 'svc.apps': 'true' });
    plane = await startPlane({ env, dataDir: plane.dataDir, reuse: { owner: plane.owner, project: plane.project } });
    await engine.shareImage(image);

    const released = await deploy();
    expect(released.status, released.failure?.message).toBe('active');
    const worker = engine.workers[0]!;
    const service = await client.inspectService(swarmServiceName(plane.project.id, 'app'));
    expect(pinnedNode(service)).toBe(worker.nodeId);
    const serving = (await client.listTasks({ service: service!.id })).filter(isServing);
    expect(serving.map((t) => t.NodeID)).toEqual([worker.nodeId]);
    expect(plane.plane.releases.current(plane.project.id)?.host).toBe(worker.nodeAddress);

    // The volume (created by the first job) lives on the worker only.
    const volumes = async (socketPath: string) =>
      (JSON.parse((await engineCall(socketPath, 'GET', '/volumes')).body) as { Volumes: { Name: string }[] | null }).Volumes?.map((v) => v.Name) ?? [];
    expect(await volumes(worker.socketPath)).toContain(swarmVolumeName(plane.project.id));
    expect(await volumes(engine.socketPath)).not.toContain(swarmVolumeName(plane.project.id));

    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
    const res = await request(`${origin}/`, { headers: { host: `${plane.project.slug}.localhost` } });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { release: string }).release).toBe(released.id);
  }, 240_000);
});
