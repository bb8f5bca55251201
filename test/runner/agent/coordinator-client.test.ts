// Transport behaviours of the runner's control-plane client against a small HTTP server on port 0:
// redirects refused, retries on 503 (not on 400), schema checks, artifact bound, stale observation,
// and lease loss (409 or silence past expiry) aborting the running reconcile.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createCoordinatorClient } from '../../../runner/agent/create-coordinator-client.js';
import { openProviderDeploymentAgent, type AgentOperation } from '../../../runner/provider/open-provider-deployment-agent.js';
import type { DeploymentProvider, ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { listen } from '../provider/provider-helpers.js';

const CREDENTIAL = 'node-credential-'.padEnd(48, 'c');
type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server answering `routes[METHOD path]`; records every request. */
async function control(routes: Record<string, Route>) {
  const seen: { method: string; path: string; auth: string | undefined; body: string }[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      seen.push({ method: req.method ?? '', path, auth: req.headers.authorization, body });
      const route = routes[`${req.method} ${path}`];
      if (route) route(req, res, body);
      else json(res, 404, { error: { code: 'SVC_NOT_FOUND', message: 'no' } });
    });
  });
  closers.push(server.close);
  return { url: server.url, seen, count: (key: string) => seen.filter((s) => `${s.method} ${s.path}` === key).length };
}
function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
const client = (url: string, extra: Partial<Parameters<typeof createCoordinatorClient>[0]> = {}) =>
  createCoordinatorClient({ controlUrl: url, credential: CREDENTIAL, maxArtifactBytes: 1024, retryAttempts: 3, retryDelayMs: 1, ...extra });
const stoppedOp = {
  kind: 'reconcile',
  id: 'op_1',
  projectId: 'prj_1',
  fence: 3,
  desired: { generation: 2, state: 'stopped', releaseId: null },
  artifactSha256: null,
};
const leaseBody = (leaseMs: number) => ({ operation: stoppedOp, leaseExpiresAt: new Date(Date.now() + leaseMs).toISOString(), leaseMs });
const heartbeat = { draining: false, capacity: 1, labels: {} };

describe('createCoordinatorClient transport', () => {
  it('requires HTTPS off loopback and refuses redirects without following them', async () => {
    expect(() => client('http://control.example')).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    expect(() => client('https://control.example')).not.toThrow();
    const cp = await control({
      'POST /api/nodes/operations/lease': (_q, res) => res.writeHead(307, { location: '/elsewhere' }).end(),
      'POST /elsewhere': (_q, res) => json(res, 200, leaseBody(1000)),
    });
    await expect(client(cp.url).next(new AbortController().signal)).rejects.toMatchObject({ code: 'SVC_RUNNER_CONTROL_REJECTED' });
    expect(cp.count('POST /elsewhere')).toBe(0);
    expect(cp.count('POST /api/nodes/operations/lease')).toBe(1);
  });

  it('retries the same idempotent request on 503 and network failure, never on 400; sends the node credential', async () => {
    let calls = 0;
    const cp = await control({
      'POST /api/nodes/heartbeat': (_q, res, body) => {
        calls += 1;
        if (calls === 1) return void res.destroy();
        if (calls === 2) return json(res, 503, { error: { code: 'SVC_UNAVAILABLE' } });
        expect(JSON.parse(body)).toEqual(heartbeat);
        json(res, 200, { nodeLeaseMs: 30_000, serverTime: new Date().toISOString() });
      },
      'POST /api/nodes/operations/op_1/fail': (_q, res) => json(res, 400, { error: { code: 'SVC_VALIDATION' } }),
    });
    expect(await client(cp.url).heartbeat(heartbeat)).toMatchObject({ nodeLeaseMs: 30_000 });
    expect(cp.count('POST /api/nodes/heartbeat')).toBe(3);
    expect(cp.seen.every((s) => s.auth === `Bearer ${CREDENTIAL}`)).toBe(true);
    await expect(client(cp.url).fail('op_1', 'SVC_PROVIDER_FAILED')).rejects.toMatchObject({ code: 'SVC_RUNNER_CONTROL_REJECTED' });
    expect(cp.count('POST /api/nodes/operations/op_1/fail')).toBe(1);

    const down = await control({ 'POST /api/nodes/heartbeat': (_q, res) => json(res, 503, {}) });
    await expect(client(down.url).heartbeat(heartbeat)).rejects.toMatchObject({ code: 'SVC_RUNNER_CONTROL_UNREACHABLE' });
    expect(down.count('POST /api/nodes/heartbeat')).toBe(3);
  });

  it('lease: 204 is null, an off-contract answer is rejected; observe 409 stale is false; artifact size is bounded', async () => {
    let leaseCalls = 0;
    const cp = await control({
      'POST /api/nodes/operations/lease': (_q, res) =>
        ++leaseCalls === 1 ? res.writeHead(204).end() : json(res, 200, { operation: stoppedOp, leaseMs: 'soon' }),
      'POST /api/nodes/operations/op_1/observe': (_q, res) => json(res, 409, { error: { code: 'SVC_PROVIDER_STALE_FENCE', message: 'stale' } }),
      'GET /api/nodes/operations/op_1/artifact': (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/vnd.svc.deploy+gzip' });
        res.write(Buffer.alloc(800));
        res.end(Buffer.alloc(800));
      },
    });
    const c = client(cp.url);
    expect(await c.next(new AbortController().signal)).toBeNull();
    await expect(c.next(new AbortController().signal)).rejects.toMatchObject({ code: 'SVC_RUNNER_CONTROL_REJECTED' });
    expect(await c.observe(stoppedOp as AgentOperation, { kind: 'http', generation: 2, releaseId: null, state: 'stopped' })).toBe(false);
    await expect(c.fetchArtifact(stoppedOp as AgentOperation, new AbortController().signal)).rejects.toMatchObject({ code: 'SVC_RUNNER_ARTIFACT_TOO_LARGE' });
    expect(await client(cp.url, { maxArtifactBytes: 4096 }).fetchArtifact(stoppedOp as AgentOperation, new AbortController().signal)).toHaveLength(1600);
  });
});

/** A provider that runs until its signal aborts (or `finishAfterMs` passes). */
function slowProvider(finishAfterMs = 60_000): DeploymentProvider & { aborted: () => boolean } {
  let aborted = false;
  return {
    kind: 'slow',
    aborted: () => aborted,
    reconcile: (request: ReconcileRequest) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, finishAfterMs);
        request.signal.addEventListener('abort', () => {
          aborted = true;
          clearTimeout(timer);
          reject(new Error('aborted'));
        });
      }),
  };
}

describe('lease renewal and lease loss', () => {
  function leasingControl(renew: (n: number, res: ServerResponse) => void) {
    let renewals = 0;
    let leased = false;
    return control({
      'POST /api/nodes/operations/lease': (_q, res) => (leased ? res.writeHead(204).end() : ((leased = true), json(res, 200, leaseBody(300)))),
      'POST /api/nodes/operations/op_1/renew': (_q, res) => renew(++renewals, res),
      'POST /api/nodes/operations/op_1/observe': (_q, res) => json(res, 200, { accepted: true }),
      'POST /api/nodes/operations/op_1/fail': (_q, res) => json(res, 409, { error: { code: 'SVC_NODE_LEASE_LOST' } }),
    });
  }
  const ok = (res: ServerResponse) => json(res, 200, { leaseExpiresAt: new Date(Date.now() + 300).toISOString() });

  it('renews at a third of leaseMs so a reconcile longer than the lease completes and is observed', async () => {
    const cp = await leasingControl((_n, res) => ok(res));
    const agent = openProviderDeploymentAgent({ coordinator: client(cp.url), provider: slowProvider(900), autoStart: false });
    expect(await agent.runOnce()).toBe('observed');
    expect(cp.count('POST /api/nodes/operations/op_1/renew')).toBeGreaterThanOrEqual(5);
    expect(cp.count('POST /api/nodes/operations/op_1/observe')).toBe(1);
    // The observation carries the lease's fence, so a stale holder's report can be told apart.
    expect(JSON.parse(cp.seen.find((s) => s.path.endsWith('/observe'))!.body)).toEqual({
      fence: 3,
      result: { kind: 'slow', generation: 2, releaseId: null, state: 'stopped' },
    });
  });

  it('a 409 SVC_NODE_LEASE_LOST on renewal aborts the running reconcile; it is never observed', async () => {
    const cp = await leasingControl((n, res) => (n < 2 ? ok(res) : json(res, 409, { error: { code: 'SVC_NODE_LEASE_LOST', message: 'lost' } })));
    const provider = slowProvider();
    const lost: string[] = [];
    const agent = openProviderDeploymentAgent({ coordinator: client(cp.url, { onLeaseLost: (id) => lost.push(id) }), provider, autoStart: false });
    const started = Date.now();
    expect(await agent.runOnce()).toBe('failed');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(provider.aborted()).toBe(true);
    expect(lost).toEqual(['op_1']);
    expect(cp.count('POST /api/nodes/operations/op_1/observe')).toBe(0);
    expect(JSON.parse(cp.seen.find((s) => s.path.endsWith('/fail'))!.body)).toEqual({ code: 'SVC_RUNNER_LEASE_LOST', fence: 3 });
  });

  it('renewals failing until the lease expires abort the reconcile (no confirmation, no work)', async () => {
    const cp = await leasingControl((_n, res) => json(res, 503, {}));
    const provider = slowProvider();
    const agent = openProviderDeploymentAgent({ coordinator: client(cp.url), provider, autoStart: false });
    expect(await agent.runOnce()).toBe('failed');
    expect(provider.aborted()).toBe(true);
    expect(cp.count('POST /api/nodes/operations/op_1/observe')).toBe(0);
  });

  it('a reconcile past operationTimeoutMs is aborted and failed with SVC_RUNNER_TIMEOUT', async () => {
    const cp = await leasingControl((_n, res) => ok(res));
    const provider = slowProvider();
    const agent = openProviderDeploymentAgent({ coordinator: client(cp.url), provider, autoStart: false, operationTimeoutMs: 200 });
    expect(await agent.runOnce()).toBe('failed');
    expect(provider.aborted()).toBe(true);
    expect(JSON.parse(cp.seen.find((s) => s.path.endsWith('/fail'))!.body)).toEqual({ code: 'SVC_RUNNER_TIMEOUT', fence: 3 });
  });
});
