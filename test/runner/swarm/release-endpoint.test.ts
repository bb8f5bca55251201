import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCodes, type ErrorCode } from '../../../src/core/errors.js';
import { startReleaseEndpoint, type EndpointFixture } from './release-endpoint-fixture.js';

let dir: string;
let endpoint: EndpointFixture;
let artifact: Buffer;

const migrateJob = {
  job: {
    type: 'migrate' as const,
    target: { databasePath: '/data/app.db', migrationsDir: 'migrations', allowUnsafeMigrations: false, operatorAllowsUnsafe: false },
    now: 5,
  },
  needsRelease: true,
  releaseId: 'rel_1',
};
const snapshotJob = { job: { type: 'snapshot' as const, databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' };
const restoreJob = { job: { type: 'restore-snapshot' as const, databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-release-endpoint-'));
  artifact = randomBytes(300_000);
  await writeFile(join(dir, 'rel_1.svc.gz'), artifact);
  endpoint = await startReleaseEndpoint({ limits: { maxOutputBytes: 100_000, maxResultBytes: 2048 } });
  endpoint.releases.set('rel_1', { path: join(dir, 'rel_1.svc.gz'), sha256: createHash('sha256').update(artifact).digest('hex') });
  endpoint.jobs.set('job_m', { description: migrateJob, results: [] });
  endpoint.jobs.set('job_s', { description: snapshotJob, output: join(dir, 'out', 'snap.db'), results: [] });
  endpoint.jobs.set('job_r', { description: restoreJob, input: join(dir, 'rel_1.svc.gz'), results: [] });
});
afterEach(async () => {
  await endpoint.close();
  await rm(dir, { recursive: true, force: true });
});

function call(path: string, init: { method?: string; token?: string; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers, ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) };
  return fetch(`${endpoint.origin}${path}`, { method: init.method ?? 'GET', headers, ...(init.body ? { body: init.body } : {}) });
}

async function expectError(response: Response, status: number, code: ErrorCode): Promise<void> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string; hint: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.hint).toBe(errorCodes[code].hint);
  expect(body.error.message.length).toBeGreaterThan(0);
}

function putJson(path: string, token: string, body: unknown): Promise<Response> {
  return call(path, { method: 'PUT', token, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

describe('release endpoint: the artifact', () => {
  it('streams the release bytes with their length, digest and media type', async () => {
    const response = await call('/v1/releases/rel_1/artifact', { token: endpoint.token('release', 'rel_1') });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(artifact.length));
    expect(response.headers.get('content-type')).toBe('application/vnd.svc.deploy+gzip');
    expect(response.headers.get('x-svc-sha256')).toBe(endpoint.releases.get('rel_1')!.sha256);
    expect(Buffer.from(await response.arrayBuffer()).equals(artifact)).toBe(true);
  });

  it('refuses a missing, foreign, expired or revoked credential with its code and hint', async () => {
    const missing = await call('/v1/releases/rel_1/artifact');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectError(missing, 401, 'SVC_RELEASE_CREDENTIAL_INVALID');
    await expectError(await call('/v1/releases/rel_1/artifact', { token: 'svc-rc1.e30.AAAA' }), 401, 'SVC_RELEASE_CREDENTIAL_INVALID');
    await expectError(await call('/v1/releases/rel_1/artifact', { token: endpoint.token('release', 'rel_2') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');

    const short = endpoint.token('release', 'rel_1', { lifetimeMs: 1000 });
    endpoint.clock.advance(1000);
    await expectError(await call('/v1/releases/rel_1/artifact', { token: short }), 401, 'SVC_RELEASE_CREDENTIAL_EXPIRED');

    const old = endpoint.token('release', 'rel_1', { generation: 1 });
    endpoint.revoked.add('release:rel_1:1');
    await expectError(await call('/v1/releases/rel_1/artifact', { token: old }), 401, 'SVC_RELEASE_CREDENTIAL_REVOKED');
    const current = await call('/v1/releases/rel_1/artifact', { token: endpoint.token('release', 'rel_1', { generation: 2 }) });
    expect(current.status).toBe(200);
    await current.arrayBuffer();
  });

  it('answers 404 for a release it does not hold, only after the credential passed', async () => {
    endpoint.releases.delete('rel_1');
    await expectError(await call('/v1/releases/rel_1/artifact'), 401, 'SVC_RELEASE_CREDENTIAL_INVALID');
    await expectError(await call('/v1/releases/rel_1/artifact', { token: endpoint.token('release', 'rel_1') }), 404, 'SVC_RELEASE_ENDPOINT_UNKNOWN');
  });

  it('lets a job credential fetch only the release its own job reads', async () => {
    const ok = await call('/v1/releases/rel_1/artifact', { token: endpoint.token('job', 'job_m') });
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).length).toBe(artifact.length);
    await expectError(await call('/v1/releases/rel_1/artifact', { token: endpoint.token('job', 'job_s') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');
    await expectError(await call('/v1/releases/rel_2/artifact', { token: endpoint.token('job', 'job_m') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');
    await expectError(await call('/v1/releases/rel_1/artifact', { token: endpoint.token('job', 'job_gone') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');
  });

  it('answers an internal failure as SVC_INTERNAL without its cause, which only the log gets', async () => {
    await endpoint.close();
    endpoint = await startReleaseEndpoint({
      artifactFor: () => {
        throw new Error('database is locked at /secret/path');
      },
    });
    const response = await call('/v1/releases/rel_1/artifact', { token: endpoint.token('release', 'rel_1') });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain('SVC_INTERNAL');
    expect(text).not.toContain('/secret/path');
    expect(endpoint.log.at(-1)).toMatchObject({ route: 'artifact', status: 500, code: 'SVC_INTERNAL', cause: 'database is locked at /secret/path' });
  });
});

describe('release endpoint: jobs', () => {
  it('describes a job to its own credential only', async () => {
    const response = await call('/v1/jobs/job_m', { token: endpoint.token('job', 'job_m') });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(migrateJob);
    await expectError(await call('/v1/jobs/job_m', { token: endpoint.token('job', 'job_s') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');
    await expectError(await call('/v1/jobs/job_m', { token: endpoint.token('release', 'job_m') }), 403, 'SVC_RELEASE_CREDENTIAL_SCOPE');
    await expectError(await call('/v1/jobs/job_x', { token: endpoint.token('job', 'job_x') }), 404, 'SVC_RELEASE_ENDPOINT_UNKNOWN');
  });

  it('serves a job its input, and 404 to a job without one', async () => {
    const response = await call('/v1/jobs/job_r/input', { token: endpoint.token('job', 'job_r') });
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(artifact)).toBe(true);
    await expectError(await call('/v1/jobs/job_m/input', { token: endpoint.token('job', 'job_m') }), 404, 'SVC_RELEASE_ENDPOINT_UNKNOWN');
  });

  it('writes a job output atomically where the driver said and answers its size and digest', async () => {
    const token = endpoint.token('job', 'job_s');
    const bytes = randomBytes(50_000);
    const response = await call('/v1/jobs/job_s/output', { method: 'PUT', token, body: bytes });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect((await readFile(join(dir, 'out', 'snap.db'))).equals(bytes)).toBe(true);

    // Again (a retry): replaced whole.
    const second = randomBytes(10);
    expect((await call('/v1/jobs/job_s/output', { method: 'PUT', token, body: second })).status).toBe(200);
    expect((await readFile(join(dir, 'out', 'snap.db'))).equals(second)).toBe(true);
    expect(await readdir(join(dir, 'out'))).toEqual(['snap.db']);
    await expectError(
      await call('/v1/jobs/job_m/output', { method: 'PUT', token: endpoint.token('job', 'job_m'), body: second }),
      404,
      'SVC_RELEASE_ENDPOINT_UNKNOWN',
    );
  });

  it('refuses an output over the limit: by its declared length at once, by its bytes mid-stream, leaving the old file', async () => {
    const token = endpoint.token('job', 'job_s');
    await call('/v1/jobs/job_s/output', { method: 'PUT', token, body: Buffer.from('old') });
    await expectError(await call('/v1/jobs/job_s/output', { method: 'PUT', token, body: randomBytes(100_001) }), 413, 'SVC_PAYLOAD_TOO_LARGE');

    // Chunked, no declared length: the endpoint stops reading at the bound and cuts the connection.
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest(`${endpoint.origin}/v1/jobs/job_s/output`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => resolve(`status ${res.statusCode}`));
      req.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code}`));
      const chunk = randomBytes(16_384);
      let sent = 0;
      const pump = (): void => {
        while (sent < 200_000) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(outcome).toMatch(/^(status 413|error (ECONNRESET|EPIPE))$/);
    expect((await readFile(join(dir, 'out', 'snap.db'))).toString()).toBe('old');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readdir(join(dir, 'out'))).toEqual(['snap.db']);
  });

  it('accepts a result validated against the job type, once', async () => {
    const token = endpoint.token('job', 'job_m');
    expect((await putJson('/v1/jobs/job_m/result', token, { ok: true, value: ['0001_init.sql'] })).status).toBe(200);
    expect((await putJson('/v1/jobs/job_m/result', token, { ok: true, value: ['0001_init.sql'] })).status).toBe(200);
    await expectError(await putJson('/v1/jobs/job_m/result', token, { ok: true, value: [] }), 409, 'SVC_CONFLICT');
    expect(endpoint.jobs.get('job_m')!.results).toEqual([
      { ok: true, value: ['0001_init.sql'] },
      { ok: true, value: ['0001_init.sql'] },
    ]);
    const snapshot = endpoint.token('job', 'job_s');
    expect((await putJson('/v1/jobs/job_s/result', snapshot, { ok: false, code: 'SVC_SNAPSHOT_FAILED', message: 'disk' })).status).toBe(200);
    const restore = endpoint.token('job', 'job_r');
    expect((await putJson('/v1/jobs/job_r/result', restore, { ok: true })).status).toBe(200);
    expect(endpoint.jobs.get('job_r')!.results).toEqual([{ ok: true, value: null }]);
  });

  it('refuses results of the wrong shape, type, size or encoding', async () => {
    const token = endpoint.token('job', 'job_s');
    await expectError(await putJson('/v1/jobs/job_s/result', token, { ok: true, value: 3 }), 400, 'SVC_VALIDATION');
    await expectError(await putJson('/v1/jobs/job_s/result', token, { ok: true, value: { sizeBytes: -1, hadDatabase: true } }), 400, 'SVC_VALIDATION');
    await expectError(await putJson('/v1/jobs/job_s/result', token, { ok: false, code: 'NOT_SVC', message: 'x' }), 400, 'SVC_VALIDATION');
    await expectError(await putJson('/v1/jobs/job_s/result', token, { ok: false, code: 'SVC_X', message: 'x'.repeat(3000) }), 413, 'SVC_PAYLOAD_TOO_LARGE');
    await expectError(
      await call('/v1/jobs/job_s/result', { method: 'PUT', token, body: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'SVC_MALFORMED_JSON',
    );
    await expectError(
      await call('/v1/jobs/job_s/result', { method: 'PUT', token, body: '{}', headers: { 'content-type': 'text/plain' } }),
      415,
      'SVC_UNSUPPORTED_MEDIA_TYPE',
    );
    expect(endpoint.jobs.get('job_s')!.results).toEqual([]);
  });

  it('answers unknown routes and methods with codes, and never logs a credential', async () => {
    const token = endpoint.token('job', 'job_m');
    await expectError(await call('/v1/jobs/job_m/other', { token }), 404, 'SVC_NOT_FOUND');
    await expectError(await call('/v1/jobs/..%2Fx', { token }), 404, 'SVC_NOT_FOUND');
    await expectError(await call('/v1/jobs/job_m', { method: 'DELETE', token }), 405, 'SVC_METHOD_NOT_ALLOWED');
    await expectError(await call('/v1/releases/rel_1/artifact', { method: 'PUT', token, body: 'x' }), 405, 'SVC_METHOD_NOT_ALLOWED');
    await expectError(await call('/v1/jobs/job_m/result', { token }), 405, 'SVC_METHOD_NOT_ALLOWED');
    // Paths are exact: no trailing slash, case matters, an id is one well-formed segment of the allowed characters.
    for (const path of ['/v1/jobs/job_m/', '/V1/jobs/job_m', '/v1/jobs/', '/v1/jobs/%E0%A4%A', '/v1/jobs/job%20m', '/v1/jobs/job_m/input/x']) {
      await expectError(await call(path, { token }), 404, 'SVC_NOT_FOUND');
    }
    await expectError(await call('/v1/jobs/..%2Fx', { method: 'PUT', token, body: 'x' }), 404, 'SVC_NOT_FOUND');
    // The longest id the protocol allows reaches the job's handler (unknown job); one more character does not.
    const longest = 'j'.repeat(128);
    await expectError(await call(`/v1/jobs/${longest}`, { token: endpoint.token('job', longest) }), 404, 'SVC_RELEASE_ENDPOINT_UNKNOWN');
    await expectError(await call(`/v1/jobs/${longest}j`, { token }), 404, 'SVC_NOT_FOUND');
    // A query string does not change the route; an escaped id is decoded.
    expect((await call('/v1/jobs/job_m?x=1', { token })).status).toBe(200);
    expect((await call('/v1/jobs/job%5Fm', { token })).status).toBe(200);
    const logged = JSON.stringify(endpoint.log);
    expect(logged).not.toContain(token.split('.')[2]);
    expect(endpoint.log.length).toBeGreaterThanOrEqual(4);
  });
});
