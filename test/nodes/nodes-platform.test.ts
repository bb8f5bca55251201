// The control plane as a real process (test/support/start-platform.ts): enroll a node, place a
// project, push a release, and converge it from the node side with plain HTTP calls.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { runCli } from '../support/run-cli.js';
import { packFixture, type Artifact } from '../releases/release-support.js';

// Response bodies are read loosely here; the contract schemas are checked by the server.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-only loose JSON access
type Json = Record<string, any>;

let platform: StartedPlatform;
let admin: TestAccount;
let packDir: string;
let artifact: Artifact;
let dataDir: string;
let credential: string;
let projectId: string;

async function call(method: string, path: string, bearer: string, body?: unknown): Promise<{ status: number; json: Json; bytes: Buffer }> {
  const response = await fetch(`${platform.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = (response.headers.get('content-type') ?? '').includes('json') && bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : {};
  return { status: response.status, json, bytes };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-nodes-data-'));
  platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
  admin = await bootstrapAccount(platform.url);
  packDir = await mkdtemp(join(tmpdir(), 'svc-nodes-platform-'));
  artifact = await packFixture('healthy', packDir);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (packDir) await rm(packDir, { recursive: true, force: true });
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('runner node against the control-plane process', () => {
  it('enrolls with a one-time token, takes a placed release and makes it active by observing it', async () => {
    const { token } = await admin.api<{ token: string }>('POST', '/api/admin/nodes/registration-tokens', { expiresInMinutes: 5 });
    const enrolled = await call('POST', '/api/nodes/enroll', token, {
      nodeId: 'node-1',
      region: 'local',
      capacity: 4,
      concurrency: 1,
      labels: { os: 'linux' },
    });
    expect(enrolled.status).toBe(201);
    credential = enrolled.json.credential as string;
    expect(
      (await call('POST', '/api/nodes/enroll', token, { nodeId: 'node-2', region: 'local', capacity: 4, concurrency: 1, labels: {} })).json.error.code,
    ).toBe('SVC_NODE_TOKEN_USED');
    expect((await call('POST', '/api/nodes/heartbeat', credential, { draining: false, capacity: 4, labels: { os: 'linux' } })).json.nodeLeaseMs).toBe(30_000);
    expect((await call('POST', '/api/nodes/heartbeat', admin.accessToken, { draining: false, capacity: 4, labels: {} })).json.error.code).toBe(
      'SVC_NODE_CREDENTIAL_INVALID',
    );

    const { project } = await admin.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Edge', slug: 'edge' });
    projectId = project.id;
    const placement = await admin.api<{ nodeId: string }>('PUT', `/api/projects/${project.id}/placement`, { labels: { os: 'linux' } });
    expect(placement.nodeId).toBe('node-1');

    const uploaded = await fetch(`${platform.url}/api/projects/${project.id}/releases?wait=false`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.accessToken}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'nodes-platform-1',
      },
      body: new Uint8Array(artifact.bytes),
    });
    expect(uploaded.status).toBe(202);
    const release = ((await uploaded.json()) as { release: { id: string; status: string } }).release;
    expect(release.status).toBe('candidate');

    const leased = await call('POST', '/api/nodes/operations/lease', credential);
    expect(leased.status).toBe(200);
    const op = leased.json.operation;
    expect(op).toMatchObject({
      kind: 'reconcile',
      projectId: project.id,
      desired: { generation: 1, state: 'running', releaseId: release.id },
      artifactSha256: artifact.digest,
    });
    const bytes = await call('GET', `/api/nodes/operations/${op.id}/artifact`, credential);
    expect(bytes.bytes.equals(artifact.bytes)).toBe(true);
    expect((await call('POST', `/api/nodes/operations/${op.id}/renew`, credential)).status).toBe(200);
    expect((await admin.api<{ release: { status: string } }>('GET', `/api/projects/${project.id}/releases/${release.id}`)).release.status).toBe('candidate');

    const observed = await call('POST', `/api/nodes/operations/${op.id}/observe`, credential, {
      fence: op.fence,
      result: { kind: 'process', generation: 1, releaseId: release.id, state: 'running' },
    });
    expect(observed.json).toEqual({ accepted: true });
    const after = await admin.api<{ activeReleaseId: string }>('GET', `/api/projects/${project.id}/releases`);
    expect(after.activeReleaseId).toBe(release.id);
    const generations = await admin.api<{ observed: { generation: number; state: string } }>('GET', `/api/projects/${project.id}/generations`);
    expect(generations.observed).toMatchObject({ kind: 'process', generation: 1, state: 'running' });
    const nodes = await admin.api<{ nodes: { id: string; status: string; placed: number }[] }>('GET', '/api/admin/nodes');
    expect(nodes.nodes).toEqual([expect.objectContaining({ id: 'node-1', status: 'ready', placed: 1 })]);
  });

  it('a candidate waiting for its node survives a control-plane restart (boot recovery leaves it alone)', async () => {
    const second = await fetch(`${platform.url}/api/projects/${projectId}/releases?wait=false`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.accessToken}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'nodes-platform-2',
      },
      body: new Uint8Array(artifact.bytes),
    });
    const release = ((await second.json()) as { release: { id: string } }).release;
    await platform.stop();
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
    expect((await call('GET', `/api/projects/${projectId}/releases/${release.id}`, admin.accessToken)).json.release.status).toBe('candidate'); // the restarted plane listens on a new port
    const op = (await call('POST', '/api/nodes/operations/lease', credential)).json.operation;
    expect(op.desired).toMatchObject({ generation: 2, releaseId: release.id });
    await call('POST', `/api/nodes/operations/${op.id}/observe`, credential, {
      fence: op.fence,
      result: { kind: 'process', generation: 2, releaseId: release.id, state: 'running' },
    });
    expect((await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json.activeReleaseId).toBe(release.id);
  });

  it("a node's report recorded before a crash, but not yet committed by the release pipeline, is committed at the next start", async () => {
    const third = await fetch(`${platform.url}/api/projects/${projectId}/releases?wait=false`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.accessToken}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'nodes-platform-3',
      },
      body: new Uint8Array(artifact.bytes),
    });
    const release = ((await third.json()) as { release: { id: string } }).release;
    const op = (await call('POST', '/api/nodes/operations/lease', credential)).json.operation;
    expect(op.desired).toMatchObject({ generation: 3, releaseId: release.id });
    await platform.stop();
    // The crash window: src/nodes recorded the observation in its transaction; the pipeline's commit never ran.
    const db = new Database(join(dataDir, 'control.db'));
    try {
      expect(
        db.prepare("UPDATE node_operations SET status = 'observed', finished_at = ? WHERE id = ? AND status = 'leased'").run(Date.now(), op.id).changes,
      ).toBe(1);
    } finally {
      db.close();
    }
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
    const releases = (await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json;
    expect(releases.activeReleaseId).toBe(release.id);
    expect(releases.releases.filter((r: { status: string }) => r.status === 'active')).toHaveLength(1);
  });

  it('a placed candidate never handed to its node (crash after keeping its bytes) fails as interrupted at the next start', async () => {
    await platform.stop();
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000', SVC_FAILPOINT: 'after-extract' } });
    const active = (await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json.activeReleaseId as string;
    const crashed = await fetch(`${platform.url}/api/projects/${projectId}/releases?wait=false`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.accessToken}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'nodes-platform-4',
      },
      body: new Uint8Array(artifact.bytes),
    }).then(
      async (r) => ((await r.json()) as { error?: { code?: string } }).error?.code,
      () => 'connection lost',
    );
    // The data plane answers for the killed control plane (or the connection just drops).
    expect(['SVC_CONTROL_PLANE_CONNECTION_LOST', 'connection lost']).toContain(crashed);
    await platform.stop();
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
    const releases = (await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json;
    expect(releases.activeReleaseId).toBe(active);
    expect(releases.releases.filter((r: { status: string }) => r.status === 'candidate')).toEqual([]);
    expect(releases.releases).toContainEqual(
      expect.objectContaining({ status: 'failed', failure: expect.objectContaining({ code: 'SVC_RELEASE_INTERRUPTED' }) }),
    );
    expect((await call('GET', `/api/projects/${projectId}/generations`, admin.accessToken)).json.desired).toMatchObject({ generation: 3 });
  });

  it('the CLI creates tokens, lists nodes, places, shows generations and stops (--json)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-nodes-home-'));
    try {
      const env = { SVC_SERVER: platform.url, SVC_TOKEN: admin.accessToken };
      const cli = async (...args: string[]): Promise<Json> => {
        const result = await runCli([...args, '--json'], { home, env });
        expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
        return JSON.parse(result.stdout) as Json;
      };
      const token = await cli('nodes', 'token', '--expires-in-minutes', '10');
      expect(token.token).toMatch(/^svcr_/);
      await call('POST', '/api/nodes/enroll', token.token, { nodeId: 'node-cli', region: 'cli-region', capacity: 2, concurrency: 1, labels: { disk: 'ssd' } });
      const list = await cli('nodes', 'list');
      expect(list.nodes.map((n: { id: string }) => n.id)).toEqual(['node-1', 'node-cli']);
      await call('POST', '/api/projects', admin.accessToken, { name: 'Cli', slug: 'cli-app' });
      const placed = await cli('place', 'cli-app', '--region', 'cli-region', '--label', 'disk=ssd');
      expect(placed.nodeId).toBe('node-cli');
      const stopped = await cli('stop', 'cli-app');
      expect(stopped.desired).toEqual({ generation: 1, state: 'stopped', releaseId: null });
      const shown = await cli('generations', 'cli-app');
      expect(shown.operations[0]).toMatchObject({ generation: 1, status: 'pending' });
      const refused = await runCli(['place', 'cli-app', '--label', 'nokey', '--json'], { home, env });
      expect(refused.exitCode).not.toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 120_000);
  it('past the wait bound the upload answers with the candidate; the report that comes later is committed by the same pipeline', async () => {
    await platform.stop();
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000', SVC_NODE_DEPLOY_WAIT_MS: '300' } });
    const waited = await fetch(`${platform.url}/api/projects/${projectId}/releases`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${admin.accessToken}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'nodes-platform-5',
      },
      body: new Uint8Array(artifact.bytes),
    });
    const release = ((await waited.json()) as { release: { id: string; status: string } }).release;
    expect([waited.status, release.status]).toEqual([201, 'candidate']);
    const op = (await call('POST', '/api/nodes/operations/lease', credential)).json.operation;
    expect(op.desired).toMatchObject({ state: 'running', releaseId: release.id });
    expect(
      (
        await call('POST', `/api/nodes/operations/${op.id}/observe`, credential, {
          fence: op.fence,
          result: { kind: 'process', generation: op.desired.generation, releaseId: release.id, state: 'running' },
        })
      ).status,
    ).toBe(200);
    let active: string | undefined;
    for (let i = 0; i < 100 && active !== release.id; i++) {
      active = (await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json.activeReleaseId as string;
      if (active !== release.id) await new Promise((r) => setTimeout(r, 20));
    }
    expect(active).toBe(release.id);
  });

  it('a control plane that stops during a placed canary fails the candidate as interrupted at the next start and asks the node for the baseline', async () => {
    await platform.stop();
    platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
    const apps: Server[] = [];
    const fakeApp = async (): Promise<number> => {
      const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      apps.push(server);
      return (server.address() as AddressInfo).port;
    };
    try {
      const baselineId = (await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json.activeReleaseId as string;
      const desired = (await call('GET', `/api/projects/${projectId}/generations`, admin.accessToken)).json.desired as { generation: number };
      const report = {
        projectId,
        generation: desired.generation,
        state: 'running',
        releaseId: baselineId,
        upstream: { host: '127.0.0.1', port: await fakeApp() },
      };
      expect(
        (
          await call('POST', '/api/nodes/heartbeat', credential, {
            draining: false,
            capacity: 4,
            labels: { os: 'linux' },
            provider: 'process',
            projects: [report],
          })
        ).status,
      ).toBe(200);
      const started = await fetch(`${platform.url}/api/projects/${projectId}/releases?wait=false`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${admin.accessToken}`,
          'content-type': 'application/vnd.svc.deploy+gzip',
          'x-svc-artifact-digest': artifact.digest,
          'idempotency-key': 'nodes-platform-canary',
          'x-svc-canary': '1',
        },
        body: new Uint8Array(artifact.bytes),
      });
      const candidate = ((await started.json()) as { release: { id: string } }).release;
      let op: Json | undefined;
      for (let i = 0; i < 100 && !op; i++) {
        op = (await call('POST', '/api/nodes/operations/lease', credential)).json.operation as Json | undefined;
        if (!op) await new Promise((r) => setTimeout(r, 50));
      }
      expect(op).toMatchObject({ desired: { state: 'running', releaseId: candidate.id }, canary: true });
      const upstream = { host: '127.0.0.1', port: await fakeApp() };
      expect(
        (
          await call('POST', `/api/nodes/operations/${op!.id}/observe`, credential, {
            fence: op!.fence,
            result: { kind: 'process', generation: op!.desired.generation, releaseId: candidate.id, state: 'running' },
            upstream,
          })
        ).status,
      ).toBe(200);
      let state: string | undefined;
      for (let i = 0; i < 100 && state !== 'running'; i++) {
        const runs = (await call('GET', `/api/projects/${projectId}/canary`, admin.accessToken)).json.runs as { releaseId: string; state: string }[];
        state = runs.find((r) => r.releaseId === candidate.id)?.state;
        if (state !== 'running') await new Promise((r) => setTimeout(r, 50));
      }
      expect(state).toBe('running');

      await platform.stop();
      platform = await startPlatform({ dataDir, env: { SVC_NODE_OPERATION_LEASE_MS: '5000' } });
      expect((await call('GET', `/api/projects/${projectId}/releases/${candidate.id}`, admin.accessToken)).json.release).toMatchObject({
        status: 'failed',
        failure: { code: 'SVC_RELEASE_INTERRUPTED' },
      });
      expect((await call('GET', `/api/projects/${projectId}/releases`, admin.accessToken)).json.activeReleaseId).toBe(baselineId);
      const runs = (await call('GET', `/api/projects/${projectId}/canary`, admin.accessToken)).json.runs as { releaseId: string; state: string }[];
      expect(runs.find((r) => r.releaseId === candidate.id)?.state).toBe('interrupted');
      // The node is asked for the baseline's release: its candidate is aborted, the baseline never interrupted.
      const abort = (await call('POST', '/api/nodes/operations/lease', credential)).json.operation as Json;
      expect(abort.desired).toMatchObject({ state: 'running', releaseId: baselineId });
      expect(abort).not.toHaveProperty('canary');
    } finally {
      for (const server of apps) server.closeAllConnections();
      await Promise.all(apps.map((server) => new Promise((r) => server.close(r))));
    }
  });
});
