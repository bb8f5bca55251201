// Runner nodes over real HTTP (port 0) against an in-process control plane with a manual clock and
// real SQLite: registration tokens, credential isolation, placement, generations, leases and fences,
// and push-to-deploy of a placed project driven from the node side with plain HTTP calls.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createToken, invite, personalOrg, register, startHarness, type Browser, type Harness } from '../platform/harness.js';
import { packFixture, type Artifact } from '../releases/release-support.js';

interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  bytes: Buffer;
}

let h: Harness;
let base: string;
let owner: Browser;
let dev: Browser;
let adminToken: string;
let packDir: string;
let artifacts: Artifact[];

async function http<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { bearer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let body = {} as T;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text) as T;
  return { status: response.status, body, bytes };
}

const code = (reply: Reply<unknown>): string | undefined => (reply.body as { error?: { code?: string } }).error?.code;

async function newToken(minutes?: number): Promise<string> {
  const reply = await http<{ token: string }>('POST', '/api/admin/nodes/registration-tokens', {
    bearer: adminToken,
    body: minutes === undefined ? {} : { expiresInMinutes: minutes },
  });
  expect(reply.status).toBe(201);
  return reply.body.token;
}

const nodeSpec = (nodeId: string, over: Record<string, unknown> = {}) => ({ nodeId, region: 'eu-west', capacity: 10, concurrency: 2, labels: {}, ...over });

async function enroll(nodeId: string, over: Record<string, unknown> = {}): Promise<string> {
  const reply = await http<{ credential: string; nodeId: string }>('POST', '/api/nodes/enroll', { bearer: await newToken(), body: nodeSpec(nodeId, over) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.credential;
}

const heartbeat = (credential: string, over: Record<string, unknown> = {}) =>
  http('POST', '/api/nodes/heartbeat', { bearer: credential, body: { draining: false, capacity: 10, labels: {}, ...over } });

interface Lease {
  operation: {
    id: string;
    projectId: string;
    fence: number;
    desired: { generation: number; state: string; releaseId: string | null };
    artifactSha256: string | null;
    rollback?: { restoreData: boolean; fromReleaseId: string | null };
    canary?: true;
  };
  leaseExpiresAt: string;
}
const lease = (credential: string) => http<Lease>('POST', '/api/nodes/operations/lease', { bearer: credential });
/** The next operation of a node, polling while a request that creates it is still on its way. */
async function leaseSoon(credential: string): Promise<Lease['operation']> {
  for (let i = 0; i < 100; i++) {
    const reply = await lease(credential);
    if (reply.status === 200) return reply.body.operation;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no operation was leased');
}
const observe = (credential: string, op: Lease['operation'], fence?: number) =>
  http('POST', `/api/nodes/operations/${op.id}/observe`, {
    bearer: credential,
    body: {
      ...(fence === undefined ? {} : { fence }),
      result: { kind: 'test', generation: op.desired.generation, releaseId: op.desired.releaseId, state: op.desired.state },
    },
  });

async function inject(method: 'GET' | 'POST' | 'PUT', url: string, browser: Browser, payload?: unknown) {
  return h.app.inject({ method, url, headers: browser.headers(), ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function place(projectId: string, request: Record<string, unknown>, browser = owner) {
  return inject('PUT', `/api/projects/${projectId}/placement`, browser, request);
}

/**
 * Upload as the CLI and the Action do: a 409 SVC_PROJECT_LOCKED (the previous operation still settling
 * and letting go of the project's lock) is retryable and sent again with the same idempotency key.
 */
async function upload(projectId: string, artifact: Artifact, options: { wait?: boolean; key?: string; headers?: Record<string, string> } = {}) {
  const key = options.key ?? `key-${Math.random().toString(36).slice(2)}`;
  const send = () =>
    h.app.inject({
      method: 'POST',
      url: `/api/projects/${projectId}/releases${options.wait === false ? '?wait=false' : ''}`,
      headers: owner.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': key,
        ...options.headers,
      }),
      payload: artifact.bytes,
    });
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.statusCode !== 409 || res.json().error?.code !== 'SVC_PROJECT_LOCKED' || attempt === 50) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  owner = await register(h.app, 'admin@example.com');
  adminToken = (await createToken(h.app, owner, { name: 'ops', permissions: ['read', 'deploy', 'rollback', 'admin'] })).accessToken;
  dev = await invite(h.app, owner, await personalOrg(h.app, owner), 'dev@example.com', 'developer');
  packDir = await mkdtemp(join(tmpdir(), 'svc-nodes-pack-'));
  artifacts = [await packFixture('healthy', packDir), await packFixture('healthy-v2', packDir)];
}, 120_000);

afterAll(async () => {
  await h?.close();
  if (packDir) await rm(packDir, { recursive: true, force: true });
});

describe('registration tokens and enrollment', () => {
  it('only the platform admin creates tokens (session with CSRF, or an admin token)', async () => {
    const byDev = await inject('POST', '/api/admin/nodes/registration-tokens', dev, {});
    expect(byDev.json().error.code).toBe('SVC_PLATFORM_ADMIN_REQUIRED');
    const noCsrf = await h.app.inject({
      method: 'POST',
      url: '/api/admin/nodes/registration-tokens',
      headers: { cookie: owner.cookie, origin: 'http://127.0.0.1:7070' },
      payload: {},
    });
    expect(noCsrf.json().error.code).toBe('SVC_CSRF_INVALID');
    const bySession = await inject('POST', '/api/admin/nodes/registration-tokens', owner, { expiresInMinutes: 5 });
    expect(bySession.statusCode).toBe(201);
    const token = await newToken();
    expect(token).toMatch(/^svcr_/);
    const stored = h.plane.db.prepare('SELECT * FROM node_registration_tokens').all() as Record<string, unknown>[];
    expect(JSON.stringify(stored)).not.toContain(token);
    const list = await http<{ nodes: unknown[] }>('GET', '/api/admin/nodes', {
      bearer: (await createToken(h.app, dev, { name: 'dev', permissions: ['read'] })).accessToken,
    });
    expect(code(list)).toBe('SVC_PLATFORM_ADMIN_REQUIRED');
  });

  it('a token enrolls exactly one node; reuse, expiry and unknown tokens fail with stable codes', async () => {
    const token = await newToken();
    const first = await http<{ credential: string }>('POST', '/api/nodes/enroll', { bearer: token, body: nodeSpec('node-a') });
    expect(first.status).toBe(201);
    expect(first.body.credential).toMatch(/^svcn_/);
    expect(JSON.stringify(h.plane.db.prepare('SELECT * FROM nodes').all())).not.toContain(first.body.credential);
    const again = await http('POST', '/api/nodes/enroll', { bearer: token, body: nodeSpec('node-b') });
    expect([again.status, code(again)]).toEqual([401, 'SVC_NODE_TOKEN_USED']);

    const short = await newToken(1);
    h.clock.advance(61_000);
    const expired = await http('POST', '/api/nodes/enroll', { bearer: short, body: nodeSpec('node-b') });
    expect([expired.status, code(expired)]).toEqual([401, 'SVC_NODE_TOKEN_EXPIRED']);
    const unknown = await http('POST', '/api/nodes/enroll', { bearer: `svcr_${'x'.repeat(43)}`, body: nodeSpec('node-b') });
    expect(code(unknown)).toBe('SVC_NODE_TOKEN_INVALID');

    // Racing enrollments with one token: exactly one node is created.
    const raced = await newToken();
    const results = await Promise.all(
      ['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => http('POST', '/api/nodes/enroll', { bearer: raced, body: nodeSpec(`node-${id}`) })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => code(r) === 'SVC_NODE_TOKEN_USED')).toHaveLength(4);

    // A duplicate node id does not consume the token.
    const spare = await newToken();
    const dup = await http('POST', '/api/nodes/enroll', { bearer: spare, body: nodeSpec('node-a') });
    expect([dup.status, code(dup)]).toEqual([409, 'SVC_NODE_ALREADY_ENROLLED']);
    expect((await http('POST', '/api/nodes/enroll', { bearer: spare, body: nodeSpec('node-b') })).status).toBe(201);
  });
});

describe('credential isolation', () => {
  it('node routes refuse account tokens and registration tokens; user routes refuse node credentials', async () => {
    const credential = await enroll('node-iso');
    for (const bearer of [adminToken, await newToken()]) {
      const beat = await heartbeat(bearer);
      expect([beat.status, code(beat)]).toEqual([401, 'SVC_NODE_CREDENTIAL_INVALID']);
      expect(code(await lease(bearer))).toBe('SVC_NODE_CREDENTIAL_INVALID');
    }
    expect((await heartbeat(credential)).status).toBe(200);
    for (const path of ['/api/projects', '/api/admin/nodes', '/api/tokens']) {
      const reply = await http('GET', path, { bearer: credential });
      expect(reply.status, path).toBe(401);
      expect(code(reply)).toBe('SVC_TOKEN_INVALID');
    }
    const enrollWithCredential = await http('POST', '/api/nodes/enroll', { bearer: credential, body: nodeSpec('node-x') });
    expect(code(enrollWithCredential)).toBe('SVC_NODE_TOKEN_INVALID');
  });
});

describe('node status, placement and operations', () => {
  let small: string;
  let p1: { id: string };
  let p2: { id: string };

  it('lists nodes as ready, draining or offline from heartbeats', async () => {
    small = await enroll('node-small', { region: 'us-east', concurrency: 1, labels: { tier: 'small' } });
    const listed = async () =>
      (await http<{ nodes: { id: string; status: string; placed: number }[] }>('GET', '/api/admin/nodes', { bearer: adminToken })).body.nodes.find(
        (n) => n.id === 'node-small',
      )!;
    expect((await listed()).status).toBe('ready');
    await heartbeat(small, { draining: true, labels: { tier: 'small' } });
    expect((await listed()).status).toBe('draining');
    h.clock.advance(31_000);
    expect((await listed()).status).toBe('offline');
    const beat = await heartbeat(small, { labels: { tier: 'small' } });
    expect(beat.body).toMatchObject({ nodeLeaseMs: 30_000 });
    expect((await listed()).status).toBe('ready');
  });

  it('places by region and labels, refuses when nothing fits, needs the admin permission', async () => {
    p1 = await createProject(h.app, owner, { name: 'One', slug: 'one' });
    p2 = await createProject(h.app, owner, { name: 'Two', slug: 'two' });
    expect((await place(p1.id, { region: 'us-east' }, dev)).json().error.code).toBe('SVC_FORBIDDEN');
    const none = await place(p1.id, { region: 'us-east', labels: { tier: 'large' } });
    expect([none.statusCode, none.json().error.code]).toEqual([409, 'SVC_NODE_NO_FIT']);
    for (const p of [p1, p2]) {
      const placed = await place(p.id, { region: 'us-east', labels: { tier: 'small' } });
      expect(placed.statusCode, placed.body).toBe(200);
      expect(placed.json()).toMatchObject({ projectId: p.id, nodeId: 'node-small', region: 'us-east' });
    }
    expect((await inject('GET', `/api/projects/${p1.id}/placement`, dev)).json()).toMatchObject({ nodeId: 'node-small' });
    const notPlaced = await createProject(h.app, owner, { name: 'Three', slug: 'three' });
    expect((await inject('GET', `/api/projects/${notPlaced.id}/placement`, owner)).json().error.code).toBe('SVC_NODE_NOT_PLACED');
    expect((await inject('POST', `/api/projects/${notPlaced.id}/generations`, owner, { state: 'stopped' })).json().error.code).toBe('SVC_NODE_NOT_PLACED');
  });

  it('bounds concurrency, re-issues an expired lease with a higher fence and rejects the stale holder (lease loss)', async () => {
    const g1 = await inject('POST', `/api/projects/${p1.id}/generations`, owner, { state: 'stopped' });
    expect(g1.statusCode, g1.body).toBe(201);
    expect(g1.json()).toMatchObject({ nodeId: 'node-small', desired: { generation: 1, state: 'stopped', releaseId: null } });
    await inject('POST', `/api/projects/${p2.id}/generations`, owner, { state: 'stopped' });

    const first = await lease(small);
    expect(first.status).toBe(200);
    expect(first.body.operation).toMatchObject({
      projectId: p1.id,
      fence: 1,
      desired: { generation: 1, state: 'stopped', releaseId: null },
      artifactSha256: null,
    });
    expect((await lease(small)).status).toBe(204); // concurrency 1
    const renewed = await http<{ leaseExpiresAt: string }>('POST', `/api/nodes/operations/${first.body.operation.id}/renew`, { bearer: small });
    expect(renewed.status).toBe(200);

    h.clock.advance(31_000);
    await heartbeat(small, { labels: { tier: 'small' } });
    const lostRenew = await http('POST', `/api/nodes/operations/${first.body.operation.id}/renew`, { bearer: small });
    expect([lostRenew.status, code(lostRenew)]).toEqual([409, 'SVC_NODE_LEASE_LOST']);
    const second = await lease(small);
    expect(second.body.operation.id).toBe(first.body.operation.id);
    expect(second.body.operation.fence).toBeGreaterThan(first.body.operation.fence);
    // The same node re-holds the operation: a renewal under the old fence is told the lease was lost.
    const staleRenew = await http('POST', `/api/nodes/operations/${first.body.operation.id}/renew`, {
      bearer: small,
      body: { fence: first.body.operation.fence },
    });
    expect([staleRenew.status, code(staleRenew)]).toEqual([409, 'SVC_NODE_LEASE_LOST']);
    const currentRenew = await http('POST', `/api/nodes/operations/${first.body.operation.id}/renew`, {
      bearer: small,
      body: { fence: second.body.operation.fence },
    });
    expect(currentRenew.status).toBe(200);
    const stale = await observe(small, first.body.operation, first.body.operation.fence);
    expect([stale.status, code(stale)]).toEqual([409, 'SVC_PROVIDER_STALE_FENCE']);
    const ok = await observe(small, second.body.operation, second.body.operation.fence);
    expect([ok.status, ok.body]).toEqual([200, { accepted: true }]);
    expect((await observe(small, second.body.operation, second.body.operation.fence)).status).toBe(200); // retry after a lost response

    const status = (await inject('GET', `/api/projects/${p1.id}/generations`, dev)).json();
    expect(status.observed).toMatchObject({ kind: 'test', generation: 1, releaseId: null, state: 'stopped' });
    expect(status.operations[0]).toMatchObject({ status: 'observed', attempts: 2, fence: second.body.operation.fence });
    // Nothing but the fixed result shape is recorded.
    const row = h.plane.db.prepare('SELECT * FROM node_desired WHERE project_id = ?').get(p1.id) as Record<string, unknown>;
    expect(
      Object.keys(row)
        .filter((k) => k.startsWith('observed_'))
        .sort(),
    ).toEqual(['observed_at', 'observed_generation', 'observed_kind', 'observed_release_id', 'observed_state']);
  });

  it('a newer generation supersedes open operations; their holders become stale', async () => {
    const held = await lease(small);
    expect(held.body.operation.projectId).toBe(p2.id);
    const g2 = await inject('POST', `/api/projects/${p2.id}/generations`, owner, { state: 'stopped' });
    expect(g2.json().desired.generation).toBe(2);
    expect(g2.json().operations.map((o: { status: string }) => o.status)).toEqual(['pending', 'superseded']);
    const late = await observe(small, held.body.operation);
    expect(code(late)).toBe('SVC_PROVIDER_STALE_FENCE');
    const next = await lease(small);
    expect(next.body.operation.desired.generation).toBe(2);
    expect(next.body.operation.fence).toBeGreaterThan(held.body.operation.fence);
    const failed = await http('POST', `/api/nodes/operations/${next.body.operation.id}/fail`, { bearer: small, body: { code: 'SVC_PROVIDER_FAILED' } });
    expect(failed.status).toBe(200);
    const status = (await inject('GET', `/api/projects/${p2.id}/generations`, owner)).json();
    expect(status.operations[0]).toMatchObject({ status: 'failed', errorCode: 'SVC_PROVIDER_FAILED' });
    const other = await enroll('node-bystander');
    expect(
      code(
        await http('POST', `/api/nodes/operations/${next.body.operation.id}/observe`, {
          bearer: other,
          body: { result: { kind: 'x', generation: 2, releaseId: null, state: 'stopped' } },
        }),
      ),
    ).toBe('SVC_NODE_OPERATION_NOT_FOUND');
  });
});

describe('push-to-deploy on a placed project', () => {
  let web: string;
  let project: { id: string; slug: string };

  it('an upload becomes active only when the node observes it; failures and canaries are handled', async () => {
    web = await enroll('node-web', { region: 'eu-north', labels: { role: 'web' } });
    project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    expect((await place(project.id, { region: 'eu-north' })).statusCode).toBe(200);

    const up = await upload(project.id, artifacts[0]!, { wait: false });
    expect(up.statusCode, up.body).toBe(202);
    const releaseId = up.json().release.id as string;
    expect(up.json().release.status).toBe('candidate');
    expect(h.plane.releases.current(project.id)).toBeNull(); // nothing runs locally
    const status = (await inject('GET', `/api/projects/${project.id}/generations`, owner)).json();
    expect(status.desired).toEqual({ generation: 1, state: 'running', releaseId });

    const leased = await lease(web);
    expect(leased.body.operation).toMatchObject({ projectId: project.id, desired: { state: 'running', releaseId }, artifactSha256: artifacts[0]!.digest });
    const bytes = await http('GET', `/api/nodes/operations/${leased.body.operation.id}/artifact`, { bearer: web });
    expect(bytes.status).toBe(200);
    expect(bytes.bytes.equals(artifacts[0]!.bytes)).toBe(true);
    const small = await enroll('node-peek');
    expect(code(await http('GET', `/api/nodes/operations/${leased.body.operation.id}/artifact`, { bearer: small }))).toBe('SVC_NODE_OPERATION_NOT_FOUND');
    expect((await http('GET', `/api/nodes/operations/${leased.body.operation.id}/artifact`, { bearer: adminToken })).status).toBe(401);

    const before = (await inject('GET', `/api/projects/${project.id}/releases/${releaseId}`, owner)).json();
    expect(before.release.status).toBe('candidate');
    expect((await observe(web, leased.body.operation, leased.body.operation.fence)).status).toBe(200);
    const after = (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json();
    expect(after.activeReleaseId).toBe(releaseId);

    // A failing deploy (upload waits for the node): the release fails, the prior one stays active.
    const waiting = upload(project.id, artifacts[1]!);
    let op: Lease['operation'] | undefined;
    for (let i = 0; i < 100 && !op; i++) {
      const reply = await lease(web);
      if (reply.status === 200) op = reply.body.operation;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(op?.desired.releaseId).toBeDefined();
    expect((await http('POST', `/api/nodes/operations/${op!.id}/fail`, { bearer: web, body: { code: 'SVC_HEALTH_CHECK_FAILED' } })).status).toBe(200);
    const done = await waiting;
    expect(done.json().release).toMatchObject({ status: 'failed', failure: { code: 'SVC_HEALTH_CHECK_FAILED' } });
    expect((await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId).toBe(releaseId);

    // No baseline routed from the node's reports (nothing listens): a requested canary is an ordinary node deploy.
    const canary = await upload(project.id, artifacts[1]!, { wait: false, headers: { 'x-svc-canary': '1' } });
    expect(canary.statusCode, canary.body).toBe(202);
    const canaryOp = await leaseSoon(web);
    expect(canaryOp.desired.releaseId).toBe(canary.json().release.id);
    expect('canary' in canaryOp).toBe(false);
    expect((await observe(web, canaryOp, canaryOp.fence)).status).toBe(200);
    // A heartbeat may show a staged canary beside a project's release (validated: no other fields).
    const shown = {
      projectId: project.id,
      generation: canaryOp.desired.generation,
      state: 'running',
      releaseId: canaryOp.desired.releaseId,
      upstream: null,
      canary: { generation: 9, releaseId: releaseId, upstream: { host: '127.0.0.1', port: 1 } },
    };
    expect((await heartbeat(web, { projects: [shown] })).status).toBe(200);
    expect((await heartbeat(web, { projects: [{ ...shown, canary: { ...shown.canary, extra: 1 } }] })).status).toBe(400);
  });

  it('a superseded upload fails, rollback becomes a generation of the older release, moving is refused', async () => {
    const first = (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId as string;
    const a = (await upload(project.id, artifacts[1]!, { wait: false })).json().release.id as string;
    const b = (await upload(project.id, artifacts[1]!, { wait: false })).json().release.id as string;
    expect((await inject('GET', `/api/projects/${project.id}/releases/${a}`, owner)).json().release).toMatchObject({
      status: 'failed',
      failure: { code: 'SVC_NODE_GENERATION_SUPERSEDED' },
    });
    const op = (await lease(web)).body.operation;
    expect(op.desired.releaseId).toBe(b);
    await observe(web, op, op.fence);
    expect((await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId).toBe(b);

    // A restore-data rollback is confirmed on the control plane before anything reaches the node.
    expect(
      (await inject('POST', `/api/projects/${project.id}/rollback`, owner, { releaseId: first, restoreData: true, confirm: 'restore nope' })).json().error.code,
    ).toBe('SVC_RELEASE_CONFIRMATION_MISMATCH');
    // The rollback answers once the node observed it, with the target active; the operation says it is a code-only rollback.
    const back = inject('POST', `/api/projects/${project.id}/rollback`, owner, { releaseId: first, restoreData: false });
    const rollbackOp = await leaseSoon(web);
    expect(rollbackOp.desired).toMatchObject({ state: 'running', releaseId: first });
    expect(rollbackOp.rollback).toEqual({ restoreData: false, fromReleaseId: b });
    await observe(web, rollbackOp, rollbackOp.fence);
    const answered = await back;
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({ release: { id: first, status: 'active' }, previousReleaseId: b, restoredData: false });
    const releases = (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json();
    expect(releases.activeReleaseId).toBe(first);
    expect(releases.releases.find((r: { id: string }) => r.id === b).status).toBe('inactive');

    // A node that refuses the rollback: the answer is its stable code, and the active release stays.
    const refused = inject('POST', `/api/projects/${project.id}/rollback`, owner, { releaseId: b, restoreData: false });
    const refusedOp = await leaseSoon(web);
    expect(
      (await http('POST', `/api/nodes/operations/${refusedOp.id}/fail`, { bearer: web, body: { code: 'SVC_HEALTH_CHECK_FAILED', fence: refusedOp.fence } }))
        .status,
    ).toBe(200);
    const refusal = await refused;
    expect([refusal.statusCode, refusal.json().error.code], refusal.body).toEqual([502, 'SVC_HEALTH_CHECK_FAILED']);
    expect((await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId).toBe(first);

    // A confirmed restore-data rollback to the active release's predecessor travels to the node with its
    // intent (the node restores the snapshot it took before deploying `first`); the answer says so.
    const restoring = inject('POST', `/api/projects/${project.id}/rollback`, owner, { releaseId: b, restoreData: true, confirm: `restore ${project.slug}` });
    const restoreOp = await leaseSoon(web);
    expect(restoreOp).toMatchObject({ desired: { state: 'running', releaseId: b }, rollback: { restoreData: true, fromReleaseId: first } });
    await observe(web, restoreOp, restoreOp.fence);
    const restored = await restoring;
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toMatchObject({ release: { id: b, status: 'active' }, previousReleaseId: first, restoredData: true });

    // An operator's running generation of an inactive release, once observed, is committed as a code-only rollback to it.
    expect((await inject('POST', `/api/projects/${project.id}/generations`, owner, { state: 'running', releaseId: first })).statusCode).toBe(201);
    const rerunOp = await leaseSoon(web);
    expect(rerunOp.desired).toMatchObject({ state: 'running', releaseId: first });
    await observe(web, rerunOp, rerunOp.fence);
    for (let i = 0; i < 100 && (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId !== first; i++)
      await new Promise((r) => setTimeout(r, 20));
    const rerun = (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json();
    expect(rerun.activeReleaseId).toBe(first);
    expect(rerun.releases.find((r: { id: string }) => r.id === b).status).toBe('inactive');

    const moved = await place(project.id, { region: 'us-east' });
    expect(moved.json().error.code).toBe('SVC_NODE_PLACEMENT_LOCKED');
    expect((await place(project.id, { region: 'eu-north' })).json()).toMatchObject({ nodeId: 'node-web' });
  });
  it("a stop-first cutover on the node: the holder has the project's requests held, not failed, until its next route", async () => {
    const apps: Server[] = [];
    const fakeApp = async (name: string): Promise<number> => {
      const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ release: name })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      apps.push(server);
      return (server.address() as AddressInfo).port;
    };
    const viaHost = async (): Promise<{ status: number; release?: string }> => {
      // undici's request: fetch() does not send a Host header of the caller's choosing.
      const res = await request(`${base}/`, { headers: { host: `${project.slug}.localhost` }, signal: AbortSignal.timeout(20_000) });
      return { status: res.statusCode, release: ((await res.body.json()) as { release?: string }).release };
    };
    const settledWithin = async <T>(promise: Promise<T>, ms: number): Promise<boolean> =>
      Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
    try {
      const portA = await fakeApp('A');
      const portB = await fakeApp('B');
      const desired = (await inject('GET', `/api/projects/${project.id}/generations`, owner)).json().desired as { generation: number; releaseId: string };
      const report = {
        projectId: project.id,
        generation: desired.generation,
        state: 'running',
        releaseId: desired.releaseId,
        upstream: { host: '127.0.0.1', port: portA },
      };
      expect((await heartbeat(web, { provider: 'test', projects: [report] })).status).toBe(200);
      expect(await viaHost()).toEqual({ status: 200, release: 'A' });

      // A migration deploy: before its writer stops, the lease holder asks for the hold.
      await upload(project.id, artifacts[1]!, { wait: false });
      const op = await leaseSoon(web);
      expect(code(await http('POST', `/api/nodes/operations/${op.id}/hold`, { bearer: web, body: { fence: op.fence + 1 } }))).toBe('SVC_NODE_LEASE_LOST');
      const other = await enroll('node-onlooker');
      expect(code(await http('POST', `/api/nodes/operations/${op.id}/hold`, { bearer: other, body: {} }))).toBe('SVC_NODE_OPERATION_NOT_FOUND');
      expect(await http('POST', `/api/nodes/operations/${op.id}/hold`, { bearer: web, body: { fence: op.fence } })).toMatchObject({
        status: 200,
        body: { held: true },
      });
      const held = viaHost();
      expect(await settledWithin(held, 300)).toBe(false);
      // A heartbeat of the generation being replaced (sent before the writer stopped) does not end the hold.
      expect((await heartbeat(web, { provider: 'test', projects: [report] })).status).toBe(200);
      expect(await settledWithin(held, 300)).toBe(false);
      // The cutover fails and the node restarted the previous app: its next report routes it again.
      expect(
        (await http('POST', `/api/nodes/operations/${op.id}/fail`, { bearer: web, body: { code: 'SVC_HEALTH_CHECK_FAILED', fence: op.fence } })).status,
      ).toBe(200);
      expect((await heartbeat(web, { provider: 'test', projects: [report] })).status).toBe(200);
      expect(await held).toEqual({ status: 200, release: 'A' });

      // The next one succeeds: its observation (with the new address) ends the hold there.
      const up = await upload(project.id, artifacts[1]!, { wait: false });
      const next = await leaseSoon(web);
      expect((await http('POST', `/api/nodes/operations/${next.id}/hold`, { bearer: web, body: { fence: next.fence } })).status).toBe(200);
      const heldAgain = viaHost();
      expect(await settledWithin(heldAgain, 300)).toBe(false);
      const observed = await http('POST', `/api/nodes/operations/${next.id}/observe`, {
        bearer: web,
        body: {
          fence: next.fence,
          result: { kind: 'test', generation: next.desired.generation, releaseId: next.desired.releaseId, state: 'running' },
          upstream: { host: '127.0.0.1', port: portB },
        },
      });
      expect(observed.status).toBe(200);
      expect(await heldAgain).toEqual({ status: 200, release: 'B' });
      expect((await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId).toBe(up.json().release.id);
    } finally {
      for (const server of apps) server.closeAllConnections();
      await Promise.all(apps.map((server) => new Promise((r) => server.close(r))));
    }
  });

  it('a canary: the lease carries canary: true, the split points at the candidate the node reports beside the routed baseline, a lost candidate or a refusing node fails it and the baseline release is asked for', async () => {
    const apps: Server[] = [];
    const fakeApp = async (name: string): Promise<number> => {
      const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ release: name })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      apps.push(server);
      return (server.address() as AddressInfo).port;
    };
    const viaHost = async (): Promise<string | undefined> => {
      const res = await request(`${base}/`, { headers: { host: `${project.slug}.localhost` }, signal: AbortSignal.timeout(20_000) });
      return ((await res.body.json()) as { release?: string }).release;
    };
    const releaseOf = async (id: string) =>
      (await inject('GET', `/api/projects/${project.id}/releases/${id}`, owner)).json().release as { status: string; failure?: { code: string } };
    const eventuallyTrue = async (check: () => Promise<boolean>): Promise<void> => {
      for (let i = 0; i < 200; i++)
        if (await check()) return;
        else await new Promise((r) => setTimeout(r, 50));
      throw new Error('condition not met in time');
    };
    try {
      const portBase = await fakeApp('base');
      const portCandidate = await fakeApp('candidate');
      const baselineId = (await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId as string;
      const desired = (await inject('GET', `/api/projects/${project.id}/generations`, owner)).json().desired as { generation: number; releaseId: string };
      const baseline = {
        projectId: project.id,
        generation: desired.generation,
        state: 'running',
        releaseId: baselineId,
        upstream: { host: '127.0.0.1', port: portBase },
      };
      expect((await heartbeat(web, { provider: 'test', projects: [baseline] })).status).toBe(200);
      expect(await viaHost()).toBe('base');

      // The canary generation: staged beside the baseline; its observation's address is the candidate's and is not routed.
      const up = await upload(project.id, artifacts[1]!, { wait: false, headers: { 'x-svc-canary': '1' } });
      expect(up.statusCode, up.body).toBe(202);
      const candidateId = up.json().release.id as string;
      const op = await leaseSoon(web);
      expect(op).toMatchObject({ desired: { state: 'running', releaseId: candidateId }, canary: true });
      const observed = await http('POST', `/api/nodes/operations/${op.id}/observe`, {
        bearer: web,
        body: {
          fence: op.fence,
          result: { kind: 'test', generation: op.desired.generation, releaseId: candidateId, state: 'running' },
          upstream: { host: '127.0.0.1', port: portCandidate },
        },
      });
      expect(observed.status).toBe(200);
      expect(await releaseOf(candidateId)).toMatchObject({ status: 'candidate' }); // a canary generation never commits by itself
      // The default policy's first stage (10%) splits the node-routed baseline's route to the candidate; heartbeats showing both keep it.
      const shown = {
        ...baseline,
        canary: { generation: op.desired.generation, releaseId: candidateId, upstream: { host: '127.0.0.1', port: portCandidate } },
      };
      const answers = new Set<string | undefined>();
      for (let i = 0; i < 40 && answers.size < 2; i++) {
        expect((await heartbeat(web, { provider: 'test', projects: [shown] })).status).toBe(200);
        answers.add(await viaHost());
      }
      expect(answers).toEqual(new Set(['base', 'candidate']));

      // The node stops showing the candidate: the canary fails and an ordinary generation of the baseline aborts it on the node.
      for (let i = 0; i < 2; i++) expect((await heartbeat(web, { provider: 'test', projects: [baseline] })).status).toBe(200);
      await eventuallyTrue(async () => (await releaseOf(candidateId)).status === 'failed');
      expect(await releaseOf(candidateId)).toMatchObject({ failure: { code: 'SVC_CANARY_CANDIDATE_LOST' } });
      const abort = await leaseSoon(web);
      expect(abort.desired).toMatchObject({ state: 'running', releaseId: baselineId });
      expect('canary' in abort).toBe(false);
      expect((await observe(web, abort, abort.fence)).status).toBe(200);
      for (let i = 0; i < 10; i++) expect(await viaHost()).toBe('base');
      expect((await inject('GET', `/api/projects/${project.id}/releases`, owner)).json().activeReleaseId).toBe(baselineId);

      // A node whose provider cannot stage canaries refuses the operation: the release fails with that code, the run is rejected.
      const refused = await upload(project.id, artifacts[1]!, { wait: false, headers: { 'x-svc-canary': '1' } });
      const refusedId = refused.json().release.id as string;
      const refusedOp = await leaseSoon(web);
      expect(refusedOp.canary).toBe(true);
      expect(
        (
          await http('POST', `/api/nodes/operations/${refusedOp.id}/fail`, {
            bearer: web,
            body: { code: 'SVC_CANARY_PROVIDER_UNSUPPORTED', fence: refusedOp.fence },
          })
        ).status,
      ).toBe(200);
      await eventuallyTrue(async () => (await releaseOf(refusedId)).status === 'failed');
      expect(await releaseOf(refusedId)).toMatchObject({ failure: { code: 'SVC_CANARY_PROVIDER_UNSUPPORTED' } });
      const runs = (await inject('GET', `/api/projects/${project.id}/canary`, owner)).json().runs as { releaseId: string; state: string }[];
      expect(runs.find((r) => r.releaseId === refusedId)).toMatchObject({ state: 'rejected' });
      expect(runs.find((r) => r.releaseId === candidateId)).toMatchObject({ state: 'failed' });
      expect((await leaseSoon(web)).desired).toMatchObject({ releaseId: baselineId });
      expect(await viaHost()).toBe('base');
    } finally {
      for (const server of apps) server.closeAllConnections();
      await Promise.all(apps.map((server) => new Promise((r) => server.close(r))));
    }
  });
});
