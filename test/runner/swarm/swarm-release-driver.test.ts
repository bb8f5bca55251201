// The swarm driver where the driver contract does not look, on a real single-node swarm (dockerd in its
// own network namespace) behind a real control plane: a task swarm restarts after it was killed is
// reported and the ingress follows its new port; a canary runs as a second service and is promoted
// into the project's service, or removed when it fails; a restarted control plane re-adopts the
// running task; release cleanup removes the kept artifact; a job task that ends without a result
// fails with SVC_SWARM_JOB_FAILED; project deletion leaves no service, secret, network or volume behind.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateProjectPath, projectLayout, releaseDirOf } from '../../../src/releases/index.js';
import { assembleNodeRootfs, writeRootfsTar } from '../../../runner/container/node-rootfs.js';
import { projectNetworkName } from '../../../runner/container/network-args.js';
import { keptArtifactPath } from '../../../runner/release-driver.js';
import type { EngineClient } from '../../../runner/swarm/engine-client.js';
import { openSwarmReleaseDriver } from '../../../runner/swarm/open-swarm-release-driver.js';
import { SWARM_LABELS, swarmServiceName, swarmVolumeName } from '../../../runner/swarm/swarm-names.js';
import { specGeneration } from '../../../runner/swarm/service-control.js';
import { swarmEngineGate, type SwarmEngine } from '../../support/swarm-engine.js';
import { packCandidate, quickPolicy } from '../../canary/support.js';
import { eventually, packFixture, startPlane, type Artifact, type Plane } from '../../releases/release-support.js';
import { startSwarmPlane, stopSwarmPlane } from './swarm-plane.js';
import { steadyTraffic } from '../../releases/steady-traffic.js';

const gate = swarmEngineGate('swarm release driver');

/** POST to the engine's own API (what an operator's `docker kill` does). */
function engineCall(engine: SwarmEngine, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpRequest({ socketPath: engine.socketPath, method: 'POST', path: `/v1.41${path}` }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

describe.skipIf(gate.skip)('swarm release driver on a real swarm', () => {
  let engine: SwarmEngine;
  let client: EngineClient;
  let plane: Plane;
  let origin: string;
  let work: string;
  let env: Record<string, string>;
  const art: Record<string, Artifact> = {};
  const ids: Record<string, string> = {};

  const host = () => `${plane.project.slug}.localhost`;
  const serving = async (): Promise<{ status: number; release?: string; version?: number }> => {
    const res = await request(`${origin}/`, { headers: { host: host() } });
    const body = (await res.body.json()) as { release?: string; version?: number };
    return { status: res.statusCode, ...body };
  };
  const listen = async (p: Plane): Promise<string> => {
    await p.app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(p.app.server.address() as AddressInfo).port}`;
  };
  const deploy = async (
    artifact: Artifact,
    headers: Record<string, string> = {},
  ): Promise<{ id: string; status: string; failure?: { code: string; message: string } }> => {
    const res = await plane.upload(artifact, { headers });
    const body = res.json() as { release?: { id: string; status: string; failure?: { code: string; message: string } } };
    if (!body.release) throw new Error(`upload answered ${res.statusCode}: ${res.body}`);
    return body.release;
  };
  const projectLabel = () => ({ [SWARM_LABELS.project]: plane.project.id });

  beforeAll(async () => {
    gate.assertPresent();
    ({ engine, client, plane, work, env } = await startSwarmPlane({ workPrefix: 'svc-swarm-driver-', buildImage: false, fixedEndpoint: false, drainMs: 2000 }));
    origin = await listen(plane);
    art.v1 = await packFixture('healthy', work);
    art.canary = await packCandidate(work, 2, 'ok', quickPolicy());
    art.failing = await packCandidate(work, 3, 'fail', quickPolicy());
    const first = await deploy(art.v1);
    expect(first.status, first.failure?.message).toBe('active');
    ids.v1 = first.id;
  }, 240_000);

  afterAll(() => stopSwarmPlane({ plane, engine, work }), 120_000);

  it('reports a task swarm restarted after it was killed, and the ingress follows its new port', async () => {
    const before = plane.plane.releases.current(plane.project.id)!;
    const [task] = await client.listTasks({ service: swarmServiceName(plane.project.id, 'app'), desiredState: 'running' });
    const container = task?.Status.ContainerStatus?.ContainerID;
    expect(container).toBeTruthy();
    expect(await engineCall(engine, `/containers/${container}/kill?signal=SIGKILL`)).toBe(204);

    const after = await eventually(() => {
      const now = plane.plane.releases.current(plane.project.id);
      return now && now.id !== before.id ? now : null;
    }, 60_000);
    expect(after.port).not.toBe(before.port);
    expect(after.releaseId).toBe(ids.v1);
    expect(plane.plane.releases.driver.status(plane.project.id)).toMatchObject({ state: 'running', port: after.port, crashStreak: 1 });
    await eventually(async () => (await serving()).status === 200, 30_000);
    const logs = (await plane.api('GET', `/api/projects/${plane.project.id}/logs`)).json() as { entries: { line: string }[] };
    expect(logs.entries.map((e) => e.line)).toContainEqual(expect.stringMatching(/exited \(status 137\); restart in \d+ ms/));
  }, 120_000);

  it('runs a canary as a second service beside the project, then promotes it into the project service', async () => {
    const traffic = steadyTraffic(origin, host());
    const released = await deploy(art.canary!, { 'x-svc-canary': '1' });
    await new Promise((r) => setTimeout(r, 300));
    const seen = await traffic.stop();
    expect(released.status, released.failure?.message).toBe('active');
    expect(seen.failures).toEqual([]);
    ids.canary = released.id;
    expect((await serving()).version).toBe(2);
    expect(await client.inspectService(swarmServiceName(plane.project.id, 'canary'))).toBeNull();
    const service = await client.inspectService(swarmServiceName(plane.project.id, 'app'));
    expect(service?.spec.Labels?.[SWARM_LABELS.release]).toBe(ids.canary);
    // Only the serving generation keeps its secrets (older ones went with the promotion).
    const generations = new Set((await client.listSecrets(projectLabel())).map((s) => Number(s.labels[SWARM_LABELS.generation])));
    expect([...generations]).toEqual([specGeneration(service?.spec)]);
  }, 180_000);

  it('removes a canary that fails its criteria; the project service keeps serving the baseline', async () => {
    const before = plane.plane.releases.current(plane.project.id)!;
    const traffic = steadyTraffic(origin, host());
    const released = await deploy(art.failing!, { 'x-svc-canary': '1' });
    await traffic.stop(); // the candidate's own 500s are what fails it
    expect(released).toMatchObject({ status: 'failed', failure: { code: 'SVC_CANARY_CRITERIA_FAILED' } });
    expect(await client.inspectService(swarmServiceName(plane.project.id, 'canary'))).toBeNull();
    expect((await client.inspectService(swarmServiceName(plane.project.id, 'app')))?.spec.Labels?.[SWARM_LABELS.release]).toBe(ids.canary);
    expect(plane.plane.releases.current(plane.project.id)?.id).toBe(before.id);
    expect((await serving()).version).toBe(2);
  }, 180_000);

  it('re-adopts the running task after a control-plane restart, without restarting it', async () => {
    const before = plane.plane.releases.current(plane.project.id)!;
    await plane.close();
    plane = await startPlane({ env, dataDir: plane.dataDir, reuse: { owner: plane.owner, project: plane.project } });
    origin = await listen(plane);
    const adopted = plane.plane.releases.current(plane.project.id);
    expect(adopted?.id).toBe(before.id);
    expect(adopted?.port).toBe(before.port);
    await eventually(async () => (await serving()).version === 2, 30_000);
  }, 120_000);

  it('release cleanup removes an inactive release with its kept artifact', async () => {
    const dir = releaseDirOf(projectLayout(plane.dataDir, plane.project.id), ids.v1!);
    expect(existsSync(keptArtifactPath(dir))).toBe(true);
    const res = await plane.app.inject({
      method: 'DELETE',
      url: `/api/projects/${plane.project.id}/releases/${ids.v1}`,
      headers: plane.owner.headers(),
      payload: { confirm: `delete-release ${plane.project.slug} ${ids.v1}`, allowRollbackLoss: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(keptArtifactPath(dir))).toBe(false);
  });

  it('fails a job whose task ends without a result with SVC_SWARM_JOB_FAILED and its last log lines', async () => {
    // A real image whose entrypoint exits at once, as a crashed job would.
    const root = join(work, 'fake-root');
    await assembleNodeRootfs(root, { user: '10001:10001' });
    await mkdir(join(root, 'svc'), { recursive: true });
    await writeFile(join(root, 'svc', 'swarm-entrypoint.mjs'), "console.error('fake entrypoint: leaving without a result');\nprocess.exit(3);\n");
    await writeRootfsTar(root, join(work, 'fake.tar'));
    const image = await client.importImage(join(work, 'fake.tar'), { repository: 'svc-fake-entrypoint', tag: 'test', changes: ['USER 10001:10001'] });
    const dataDir = join(work, 'jobs-plane');
    const driver = openSwarmReleaseDriver(
      { ...env, SVC_SWARM_IMAGE: image },
      {
        dataDir,
        resolveSpec: () => Promise.reject(new Error('no apps here')),
        onEvent: () => undefined,
        locate: (path) => locateProjectPath(dataDir, path),
        releaseDirOf: (projectId, releaseId) => releaseDirOf(projectLayout(dataDir, projectId), releaseId),
      },
    );
    try {
      const job = driver.runJob({ type: 'database-footprint', databasePath: join(projectLayout(dataDir, 'prj_jobless').dataDir, 'app.db') });
      await expect(job).rejects.toMatchObject({
        code: 'SVC_SWARM_JOB_FAILED',
        message: expect.stringMatching(/without a result[\s\S]*fake entrypoint: leaving without a result/),
      });
      expect(await client.listServices({ [SWARM_LABELS.project]: 'prj_jobless', [SWARM_LABELS.role]: 'job' })).toEqual([]);
      expect(await client.listSecrets({ [SWARM_LABELS.project]: 'prj_jobless' })).toEqual([]);
    } finally {
      await driver.detachAll();
    }
  }, 120_000);

  it('project deletion removes the project service, its secrets, network and volume', async () => {
    const projectId = plane.project.id;
    expect(await client.listVolumes(projectLabel())).not.toEqual([]);
    const res = await plane.app.inject({
      method: 'DELETE',
      url: `/api/projects/${projectId}`,
      headers: plane.owner.headers(),
      payload: { confirm: `delete-site ${plane.project.slug}`, acknowledgeDataLoss: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await client.listServices(projectLabel())).toEqual([]);
    expect(await client.listSecrets(projectLabel())).toEqual([]);
    expect(await client.hasNetwork(projectNetworkName(projectId))).toBe(false);
    expect((await client.listVolumes({})).map((v) => v.name)).not.toContain(swarmVolumeName(projectId));
  }, 120_000);
});
