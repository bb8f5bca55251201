// The provider HTTP bridge over real loopback HTTP, with its faults.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDeploymentProviderHandler, createHttpDeploymentProvider } from '../../../src/operations.js';
import {
  bridgeHeaders,
  BRIDGE_CANARY_PATH,
  BRIDGE_MEDIA_TYPE,
  BRIDGE_ROLLBACK_PATH,
  envelopeHeaders,
  rollbackHeaders,
} from '../../../runner/provider/bridge-protocol.js';
import { FenceStore } from '../../../runner/provider/fence-store.js';
import { fencedProvider } from '../../../runner/provider/fenced-provider.js';
import { runReconcile, type DeploymentProvider, type ProviderArtifact, type ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { SvcError } from '../../../src/core/errors.js';
import { defaultHttpClient, HttpFailure, type HttpClient } from '../../../src/core/http/http-client.js';
import { listen, packedFixture, TOKEN } from './provider-helpers.js';

let artifact: ProviderArtifact;
let dir: string;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  artifact = await packedFixture();
  dir = await mkdtemp(join(tmpdir(), 'svc-bridge-'));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A provider recording what it was asked. */
function recorder(impl?: (r: ReconcileRequest) => Promise<void>): DeploymentProvider & { calls: ReconcileRequest[] } {
  const calls: ReconcileRequest[] = [];
  return {
    kind: 'recording',
    calls,
    async reconcile(request) {
      calls.push(request);
      await impl?.(request);
      return { secret: 'provider return values are ignored' };
    },
  };
}

function running(fence: number, generation = fence, opId = `op_${fence}`, signal = new AbortController().signal): ReconcileRequest {
  return { operation: { projectId: 'prj_1', id: opId, fence }, desired: { generation, state: 'running', releaseId: `rel_${generation}` }, artifact, signal };
}

async function bridge(provider: DeploymentProvider, onError: (e: unknown) => void = () => undefined): Promise<string> {
  const server = await listen(createDeploymentProviderHandler({ provider, token: TOKEN, maxArtifactBytes: 8 * 1024 * 1024, onError }));
  closers.push(server.close);
  return server.url;
}

function rawHeaders(extra: Record<string, string> = {}, sha = artifact.sha256): Record<string, string> {
  return {
    authorization: `Bearer ${TOKEN}`,
    'content-type': BRIDGE_MEDIA_TYPE,
    ...envelopeHeaders({ projectId: 'prj_1', operationId: 'op_1', fence: 1, attempt: 1, generation: 1, state: 'running', releaseId: 'rel_1', sha256: sha }),
    ...extra,
  };
}

/** A provider behind a bridge that predates `path`: it answers 404 there, as for any unknown path. */
async function providerWithout(path: string): Promise<{ old: ReturnType<typeof recorder>; oldServer: { url: string } }> {
  const old = recorder();
  const oldHandler = createDeploymentProviderHandler({ provider: old, token: TOKEN, maxArtifactBytes: 8 * 1024 * 1024 });
  const oldServer = await listen((req, res) => {
    if (req.url === path) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'SVC_NOT_FOUND' } }));
      return;
    }
    oldHandler(req, res);
  });
  closers.push(oldServer.close);
  return { old, oldServer };
}

describe('provider HTTP bridge', () => {
  it('delivers a running generation with a re-verified artifact and a stopped one without body; 204', async () => {
    const provider = recorder();
    const url = await bridge(provider);
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN });
    expect(await runReconcile(client, running(1))).toEqual({ kind: 'http', generation: 1, releaseId: 'rel_1', state: 'running' });
    const got = provider.calls[0]!;
    expect(got.operation).toEqual({ projectId: 'prj_1', id: 'op_1', fence: 1, attempt: 1 });
    expect(got.desired).toEqual({ generation: 1, state: 'running', releaseId: 'rel_1' });
    expect(got.artifact!.sha256).toBe(artifact.sha256);
    expect(got.artifact!.bytes.equals(artifact.bytes)).toBe(true);
    expect(got.artifact!.decoded.config.entry).toBe('dist/server.mjs');
    const stop: ReconcileRequest = {
      operation: { projectId: 'prj_1', id: 'op_2', fence: 2 },
      desired: { generation: 2, state: 'stopped', releaseId: null },
      artifact: null,
      signal: new AbortController().signal,
    };
    await client.reconcile(stop);
    expect(provider.calls[1]!.artifact).toBeNull();
    expect(provider.calls[1]!.desired).toEqual({ generation: 2, state: 'stopped', releaseId: null });
  });

  it('rejects a digest mismatch and an undecodable artifact before the provider runs', async () => {
    const provider = recorder();
    const url = await bridge(provider);
    const wrongSha = 'a'.repeat(64);
    const mismatch = await fetch(`${url}/v1/svc/reconcile`, { method: 'POST', headers: rawHeaders({}, wrongSha), body: new Uint8Array(artifact.bytes) });
    expect(mismatch.status).toBe(422);
    expect(((await mismatch.json()) as { error: { code: string } }).error.code).toBe('SVC_ARTIFACT_DIGEST_MISMATCH');
    const garbage = Buffer.from('not a gzip artifact at all');
    const { createHash } = await import('node:crypto');
    const undecodable = await fetch(`${url}/v1/svc/reconcile`, {
      method: 'POST',
      headers: rawHeaders({}, createHash('sha256').update(garbage).digest('hex')),
      body: new Uint8Array(garbage),
    });
    expect(undecodable.status).toBe(422);
    expect(((await undecodable.json()) as { error: { code: string } }).error.code).toMatch(/^SVC_ARTIFACT_/);
    const tooBig = await fetch(`${url}/v1/svc/reconcile`, { method: 'POST', headers: rawHeaders(), body: new Uint8Array(9 * 1024 * 1024) });
    expect(tooBig.status).toBe(413);
    const badHeader = await fetch(`${url}/v1/svc/reconcile`, {
      method: 'POST',
      headers: rawHeaders({ [bridgeHeaders.fence]: '-1' }),
      body: new Uint8Array(artifact.bytes),
    });
    expect(badHeader.status).toBe(400);
    const stoppedWithBody = await fetch(`${url}/v1/svc/reconcile`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...envelopeHeaders({ projectId: 'p', operationId: 'o', fence: 1, attempt: 1, generation: 1, state: 'stopped', releaseId: null, sha256: null }),
      },
      body: 'x',
    });
    expect(stoppedWithBody.status).toBe(400);
    expect(provider.calls).toHaveLength(0);
  });

  it('refuses wrong and short tokens, browsers, redirects and plain HTTP off loopback', async () => {
    const provider = recorder();
    const url = await bridge(provider);
    const wrong = createHttpDeploymentProvider({ baseUrl: url, token: 'z'.repeat(40), maxAttempts: 3 });
    await expect(wrong.reconcile(running(1))).rejects.toMatchObject({ code: 'SVC_PROVIDER_REJECTED' });
    const browser = await fetch(`${url}/v1/svc/reconcile`, {
      method: 'POST',
      headers: rawHeaders({ origin: 'http://evil.example' }),
      body: new Uint8Array(artifact.bytes),
    });
    expect(browser.status).toBe(403);
    expect(provider.calls).toHaveLength(0);
    expect(() => createHttpDeploymentProvider({ baseUrl: url, token: 'short' })).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    expect(() => createHttpDeploymentProvider({ baseUrl: url, token: 'x'.repeat(513) })).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    expect(() => createDeploymentProviderHandler({ provider, token: 'short', maxArtifactBytes: 1 })).toThrow(
      expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }),
    );
    expect(() => createHttpDeploymentProvider({ baseUrl: 'http://provider.example', token: TOKEN })).toThrow(
      expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }),
    );
    expect(() => createHttpDeploymentProvider({ baseUrl: 'https://provider.example', token: TOKEN })).not.toThrow();

    let hits = 0;
    const redirector = await listen((_req, res) => {
      hits++;
      res.writeHead(307, { location: `${url}/v1/svc/reconcile` }).end();
    });
    closers.push(redirector.close);
    const client = createHttpDeploymentProvider({ baseUrl: redirector.url, token: TOKEN, retryDelayMs: 1 });
    // A redirect is a configuration error with its own final code, never followed nor retried.
    await expect(client.reconcile(running(1))).rejects.toMatchObject({ code: 'SVC_PROVIDER_REDIRECT_REFUSED' });
    expect(hits).toBe(1);
    expect(provider.calls).toHaveLength(0);
  });

  it('retry after commit: a lost response is re-sent with the same operation id and fence and is idempotent', async () => {
    const store = new FenceStore(join(dir, 'retry.db'));
    closers.push(() => store.close());
    const inner = recorder();
    const url = await bridge(fencedProvider(inner, store));
    let deliveries = 0;
    const attempts: string[] = [];
    // The first answer is lost after the provider committed (the connection drops on the way back).
    const lossy: HttpClient = {
      ...defaultHttpClient,
      async open(req) {
        deliveries++;
        const headers = req.headers ?? {};
        attempts.push(`${headers[bridgeHeaders.operation]}@${headers[bridgeHeaders.fence]}#${headers[bridgeHeaders.attempt]}`);
        const answer = await defaultHttpClient.open(req);
        if (deliveries === 1) {
          await answer.read(1 << 20);
          throw new HttpFailure('network', 'connection reset after commit');
        }
        return answer;
      },
    };
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, http: lossy, retryDelayMs: 1 });
    await client.reconcile(running(3));
    expect(attempts).toEqual(['op_3@3#1', 'op_3@3#2']);
    expect(inner.calls).toHaveLength(1);
    expect(store.get('prj_1')).toMatchObject({ fence: 3, generation: 3, operationId: 'op_3', status: 'committed' });
  });

  it('rejects a stale fence and older generations; durable across reopen', async () => {
    const path = join(dir, 'stale.db');
    let store = new FenceStore(path);
    const inner = recorder();
    const url = await bridge(fencedProvider(inner, store));
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1 });
    await client.reconcile(running(5));
    await expect(client.reconcile(running(4))).rejects.toMatchObject({ code: 'SVC_PROVIDER_STALE_FENCE' });
    await expect(client.reconcile(running(5, 5, 'other_op'))).rejects.toMatchObject({ code: 'SVC_PROVIDER_STALE_FENCE' });
    await expect(client.reconcile(running(6, 4))).rejects.toMatchObject({ code: 'SVC_PROVIDER_STALE_FENCE' });
    expect(inner.calls).toHaveLength(1);
    store.close();
    store = new FenceStore(path);
    closers.push(() => store.close());
    expect(() => store.begin(running(4))).toThrow(expect.objectContaining({ code: 'SVC_PROVIDER_STALE_FENCE' }));
    expect(store.begin(running(7))).toBe('run');
  });

  it('provider outage: retries on 503 and on network failure, then succeeds or gives up', async () => {
    const provider = recorder();
    const real = createDeploymentProviderHandler({ provider, token: TOKEN, maxArtifactBytes: 8 * 1024 * 1024 });
    let hits = 0;
    const flaky = await listen((req, res) => {
      hits++;
      if (hits <= 2) {
        req.resume();
        res.writeHead(hits === 1 ? 503 : 429).end();
        return;
      }
      real(req, res);
    });
    closers.push(flaky.close);
    await createHttpDeploymentProvider({ baseUrl: flaky.url, token: TOKEN, retryDelayMs: 1 }).reconcile(running(1));
    expect(hits).toBe(3);
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]!.operation.attempt).toBe(3);

    const down = await listen(() => undefined);
    const deadUrl = down.url;
    await down.close();
    await expect(createHttpDeploymentProvider({ baseUrl: deadUrl, token: TOKEN, retryDelayMs: 1, maxAttempts: 3 }).reconcile(running(1))).rejects.toMatchObject(
      {
        code: 'SVC_PROVIDER_UNREACHABLE',
      },
    );
  });

  it('provider exceptions reach only onError; callers get a stable generic error', async () => {
    const seen: unknown[] = [];
    const url = await bridge(
      recorder(() => Promise.reject(new Error('secret path /srv/x and token abc'))),
      (e) => seen.push(e),
    );
    const response = await fetch(`${url}/v1/svc/reconcile`, { method: 'POST', headers: rawHeaders(), body: new Uint8Array(artifact.bytes) });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('secret path');
    expect(JSON.parse(text)).toEqual({ error: { code: 'SVC_PROVIDER_FAILED', message: expect.any(String) } });
    expect((seen[0] as Error).message).toContain('secret path');
  });

  it('abort mid-start: the client gives up and the provider sees its signal abort', async () => {
    let providerSignal: AbortSignal | null = null;
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    const url = await bridge(
      recorder(
        (r) =>
          new Promise<void>((_resolve, reject) => {
            providerSignal = r.signal;
            started();
            r.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
            setTimeout(() => reject(new Error('never aborted')), 10_000).unref();
          }),
      ),
    );
    const controller = new AbortController();
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN });
    const pending = client.reconcile(running(1, 1, 'op_1', controller.signal));
    await startedP;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'SVC_PROVIDER_ABORTED' });
    const deadline = Date.now() + 5000;
    while (!providerSignal!.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(providerSignal!.aborted).toBe(true);
  });

  it('a rollback travels on its own path with its headers; a provider without that path never restores as a plain deploy', async () => {
    const provider = recorder();
    const url = await bridge(provider);
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1 });
    await client.reconcile({ ...running(1), rollback: { restoreData: true, fromReleaseId: 'rel_0' } });
    expect(provider.calls[0]!.rollback).toEqual({ restoreData: true, fromReleaseId: 'rel_0' });
    await client.reconcile(running(2));
    expect(provider.calls[1]!.rollback).toBeUndefined();
    // Rollback headers on the plain path, or the rollback path without them, are refused.
    const wrongPath = await fetch(`${url}/v1/svc/reconcile`, {
      method: 'POST',
      headers: rawHeaders(rollbackHeaders({ restoreData: true, fromReleaseId: null })),
      body: new Uint8Array(artifact.bytes),
    });
    expect(wrongPath.status).toBe(400);
    const bare = await fetch(`${url}${BRIDGE_ROLLBACK_PATH}`, { method: 'POST', headers: rawHeaders(), body: new Uint8Array(artifact.bytes) });
    expect(bare.status).toBe(400);
    expect(provider.calls).toHaveLength(2);

    // A provider that predates rollbacks (404 on the rollback path, as any unknown path).
    const { old, oldServer } = await providerWithout(BRIDGE_ROLLBACK_PATH);
    const toOld = createHttpDeploymentProvider({ baseUrl: oldServer.url, token: TOKEN, retryDelayMs: 1 });
    await expect(toOld.reconcile({ ...running(3), rollback: { restoreData: true, fromReleaseId: 'rel_2' } })).rejects.toMatchObject({
      code: 'SVC_NODE_RESTORE_UNSUPPORTED',
    });
    expect(old.calls).toHaveLength(0);
    // A code-only rollback goes out as the plain reconcile it was before (the provider judges it).
    await toOld.reconcile({ ...running(4), rollback: { restoreData: false, fromReleaseId: 'rel_2' } });
    expect(old.calls).toHaveLength(1);
    expect(old.calls[0]!.rollback).toBeUndefined();
  });

  it('a canary travels on its own path; a provider without canaries refuses it and one without the path is never sent a plain deploy', async () => {
    const provider = Object.assign(recorder(), { supportsCanary: true });
    const url = await bridge(provider);
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1 });
    await client.reconcile({ ...running(1), canary: true });
    expect(provider.calls[0]!.canary).toBe(true);
    await client.reconcile(running(2));
    expect(provider.calls[1]!.canary).toBeUndefined();
    // The canary path takes running requests only, and no rollback headers.
    const stoppedHeaders = {
      authorization: `Bearer ${TOKEN}`,
      ...envelopeHeaders({ projectId: 'prj_1', operationId: 'op_9', fence: 9, attempt: 1, generation: 9, state: 'stopped', releaseId: null, sha256: null }),
    };
    expect((await fetch(`${url}${BRIDGE_CANARY_PATH}`, { method: 'POST', headers: stoppedHeaders })).status).toBe(400);
    const withRollback = await fetch(`${url}${BRIDGE_CANARY_PATH}`, {
      method: 'POST',
      headers: rawHeaders(rollbackHeaders({ restoreData: false, fromReleaseId: null })),
      body: new Uint8Array(artifact.bytes),
    });
    expect(withRollback.status).toBe(400);
    expect(provider.calls).toHaveLength(2);

    // A current handler whose provider has no canaries: 422 with the stable code, final, provider never called.
    const plain = recorder();
    let hits = 0;
    const counting: HttpClient = { ...defaultHttpClient, open: (req) => (hits++, defaultHttpClient.open(req)) };
    const toPlain = createHttpDeploymentProvider({ baseUrl: await bridge(plain), token: TOKEN, retryDelayMs: 1, http: counting });
    await expect(toPlain.reconcile({ ...running(3), canary: true })).rejects.toMatchObject({ code: 'SVC_CANARY_PROVIDER_UNSUPPORTED' });
    expect(hits).toBe(1);
    expect(plain.calls).toHaveLength(0);

    // A provider that predates canaries (404 on the canary path, as any unknown path).
    const { old, oldServer } = await providerWithout(BRIDGE_CANARY_PATH);
    const toOld = createHttpDeploymentProvider({ baseUrl: oldServer.url, token: TOKEN, retryDelayMs: 1 });
    await expect(toOld.reconcile({ ...running(4), canary: true })).rejects.toMatchObject({ code: 'SVC_CANARY_PROVIDER_UNSUPPORTED' });
    expect(old.calls).toHaveLength(0);
    // Through runReconcile (the agent's path) the code stays as it is.
    await expect(runReconcile(toOld, { ...running(5), canary: true })).rejects.toMatchObject({ code: 'SVC_CANARY_PROVIDER_UNSUPPORTED' });
    expect(old.calls).toHaveLength(0);
  });

  it('the running answer carries a staged canary beside the baseline, and only then', async () => {
    const upstream = { host: '127.0.0.1', port: 4100 };
    const states = [
      {
        projectId: 'prj_1',
        generation: 1,
        state: 'running' as const,
        releaseId: 'rel_1',
        upstream,
        canary: { generation: 2, releaseId: 'rel_2', upstream: { host: '127.0.0.1', port: 4101 } },
      },
      { projectId: 'prj_2', generation: 3, state: 'running' as const, releaseId: 'rel_3', upstream },
    ];
    const url = await bridge({ ...recorder(), running: async () => states });
    const raw = (await (await fetch(`${url}/v1/svc/running`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { projects: object[] };
    expect(raw.projects[1]).not.toHaveProperty('canary');
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1 });
    expect(await client.running!()).toEqual(states);
  });

  it('a failed deploy keeps its stable outcome code across the bridge (422), never provider details', async () => {
    const errors: unknown[] = [];
    const url = await bridge(
      recorder(async () => Promise.reject(new SvcError('SVC_HEALTH_CHECK_FAILED', 'internal detail'))),
      (e) => errors.push(e),
    );
    let hits = 0;
    const counting: HttpClient = { ...defaultHttpClient, open: (req) => (hits++, defaultHttpClient.open(req)) };
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1, http: counting });
    const failure = await runReconcile(client, running(1)).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'SVC_HEALTH_CHECK_FAILED' });
    expect((failure as Error).message).not.toContain('internal detail');
    expect(hits).toBe(1); // final: not retried
    expect(errors).toHaveLength(1);
  });
});
