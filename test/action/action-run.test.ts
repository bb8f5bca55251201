// The bundled Action run as GitHub runs it (node action/dist/index.js + INPUT_*/GITHUB_* + output
// and summary files) against a real control plane listening on loopback, authenticated by OIDC
// tokens from a local issuer the plane trusts — or by a project-scoped token.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { addCommit } from '../../src/github/commit-store.js';
import { createProject, createToken, ORIGIN, register, type Browser } from '../platform/harness.js';
import { startListeningPlane, type ListeningPlane } from '../ingress/support.js';
import { prepareApp, runActionProcess } from './action-process.js';
import { linkProject } from './link-project.js';
import { startLocalIssuer, type LocalIssuer } from './oidc-issuer.js';

const REPO_ID = '4242';
const sha = (c: string) => c.repeat(40);

let issuer: LocalIssuer;
let plane: ListeningPlane;
let owner: Browser;
let project: { id: string; slug: string };
let workspace: string;

beforeAll(async () => {
  issuer = await startLocalIssuer({ repository_id: REPO_ID, sha: sha('1') });
  plane = await startListeningPlane({ publicUrl: ORIGIN, oidcIssuer: issuer.issuer, oidcJwksUrl: issuer.jwksUrl });
  owner = await register(plane.plane.app, 'owner@example.com');
  project = await createProject(plane.plane.app, owner, { name: 'Shop', slug: 'shop' });
  linkProject(join(plane.plane.context.config.dataDir, 'control.db'), {
    projectId: project.id,
    repositoryId: Number(REPO_ID),
    branch: 'main',
    userId: owner.userId,
  });
  workspace = await mkdtemp(join(tmpdir(), 'svc-action-ws-'));
  await prepareApp(workspace, 'healthy');
}, 60_000);

afterAll(async () => {
  await plane?.close();
  await issuer?.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

function oidcEnv(commit: string): Record<string, string> {
  issuer.claims.sha = commit;
  return {
    GITHUB_SHA: commit,
    GITHUB_REPOSITORY_ID: REPO_ID,
    GITHUB_REPOSITORY: 'octo/shop',
    GITHUB_REF: 'refs/heads/main',
    ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken,
  };
}

const inputs = (extra: Record<string, string> = {}) => ({
  server: plane.url,
  project: 'shop',
  'working-directory': 'app',
  audience: ORIGIN,
  'retry-base-ms': '100',
  ...extra,
});

async function releases(): Promise<ReleaseListResponse> {
  const res = await plane.plane.app.inject({ method: 'GET', url: `/api/projects/${project.id}/releases`, headers: owner.headers() });
  return res.json() as ReleaseListResponse;
}

describe('svc Action with GitHub Actions OIDC', () => {
  it('builds, packs, uploads with an OIDC token and reports outputs and a job summary', async () => {
    const run = await runActionProcess(workspace, inputs(), oidcEnv(sha('1')));
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.outputs.status).toBe('active');
    expect(run.outputs['release-id']).toMatch(/^rel_/);
    expect(run.outputs.url).toBe('http://shop.localhost:7070');
    expect(run.summary).toContain('### svc deploy: active');
    expect(run.summary).toContain(run.outputs['release-id']);
    expect(run.summary).toContain('GitHub Actions OIDC');
    expect(issuer.audiences.at(-1)).toBe(ORIGIN);
    // The token was masked in the log before use.
    expect(run.stdout).toContain(`::add-mask::${issuer.issued.at(-1)}`);
    const list = await releases();
    expect(list.activeReleaseId).toBe(run.outputs['release-id']);
    expect(list.releases[0]!.createdBy.name).toContain('GitHub Actions OIDC octo/shop@refs/heads/main');
  }, 120_000);

  it('a re-run of the same commit returns the same release (idempotency key from repository + sha + digest)', async () => {
    const before = (await releases()).releases.length;
    const run = await runActionProcess(workspace, inputs({ build: 'false' }), oidcEnv(sha('1')));
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs['release-id']).toBe((await releases()).activeReleaseId);
    expect(run.summary).toContain('already uploaded');
    expect((await releases()).releases.length).toBe(before);
  }, 120_000);

  it('rejects a replayed OIDC token (same jti) with SVC_OIDC_TOKEN_REPLAYED', async () => {
    const before = (await releases()).releases.length;
    issuer.replay = true;
    try {
      const run = await runActionProcess(workspace, inputs({ build: 'false' }), oidcEnv(sha('1')));
      expect(run.exitCode).toBe(1);
      expect(run.outputs.status).toBe('error');
      expect(run.stdout).toContain('(SVC_OIDC_TOKEN_REPLAYED)');
      expect(run.summary).toContain('SVC_OIDC_TOKEN_REPLAYED');
    } finally {
      issuer.replay = false;
    }
    expect((await releases()).releases.length).toBe(before);
  }, 120_000);

  it('refuses a token for another branch and a commit that is not the token’s', async () => {
    issuer.claims.ref = 'refs/heads/dev';
    try {
      const run = await runActionProcess(workspace, inputs({ build: 'false' }), { ...oidcEnv(sha('2')), GITHUB_REF: 'refs/heads/dev' });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toContain('(SVC_OIDC_CLAIMS_MISMATCH)');
    } finally {
      issuer.claims.ref = 'refs/heads/main';
    }
    const env = oidcEnv(sha('3'));
    issuer.claims.sha = sha('4'); // the token names another commit than GITHUB_SHA
    const run = await runActionProcess(workspace, inputs({ build: 'false' }), env);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('(SVC_OIDC_CLAIMS_MISMATCH)');
  }, 120_000);

  it('retries an ambiguous failure (connection cut after the server got the upload) and a failed token request with the same key: one release', async () => {
    const proxy = await startCuttingProxy(plane.port);
    try {
      await prepareApp(workspace, 'healthy-v2');
      const before = (await releases()).releases.length;
      issuer.failNext = 1;
      const run = await runActionProcess(workspace, inputs({ server: proxy.url }), oidcEnv(sha('5')));
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(proxy.cut).toBe(1);
      expect(run.stdout).toMatch(/Attempt 1 failed .*SVC_ACTION_OIDC_REQUEST_FAILED/);
      expect(run.stdout).toMatch(/Attempt 2 failed \(.*\); retrying/);
      expect(run.summary).toContain('| Upload attempts | 3 |');
      const list = await releases();
      expect(list.releases.length).toBe(before + 1);
      expect(list.activeReleaseId).toBe(run.outputs['release-id']);
      expect(new Set(proxy.keys).size).toBe(1);
      expect(proxy.keys.length).toBe(2);
    } finally {
      await proxy.close();
    }
  }, 180_000);
});

describe('svc Action and commit order (GitHub App rules)', () => {
  it('reports an older commit than the active one as superseded, releases nothing and exits 0', async () => {
    await prepareApp(workspace, 'healthy');
    const [older, newer] = [sha('8'), sha('9')];
    // Two pushes to the linked branch, in this order (what the push webhook records).
    addCommit(plane.plane.context, project.id, older, 'waiting', null);
    addCommit(plane.plane.context, project.id, newer, 'waiting', null);
    const first = await runActionProcess(workspace, inputs(), oidcEnv(newer));
    expect(first.exitCode, first.stdout).toBe(0);
    expect(first.outputs.status).toBe('active');
    const before = (await releases()).releases.length;

    await prepareApp(workspace, 'healthy-v2');
    const late = await runActionProcess(workspace, inputs(), oidcEnv(older));
    expect(late.exitCode, late.stdout).toBe(0);
    expect(late.outputs).toMatchObject({ status: 'superseded', 'release-id': '' });
    expect(late.stdout).toContain('::warning title=svc%3A commit superseded::');
    expect(late.summary).toContain('SVC_GITHUB_COMMIT_SUPERSEDED');
    const list = await releases();
    expect(list.releases.length).toBe(before);
    expect(list.activeReleaseId).toBe(first.outputs['release-id']);
  }, 180_000);
});

describe('svc Action with a project-scoped token', () => {
  it('uploads with INPUT_TOKEN when no OIDC request is available', async () => {
    await prepareApp(workspace, 'healthy');
    const { accessToken } = await createToken(plane.plane.app, owner, { name: 'ci', projectId: project.id, permissions: ['deploy'] });
    const run = await runActionProcess(workspace, inputs({ token: accessToken }), { GITHUB_SHA: sha('6'), GITHUB_REPOSITORY_ID: REPO_ID });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.outputs.status).toBe('active');
    expect(run.stdout).toContain(`::add-mask::${accessToken}`);
    expect(run.summary).toContain('project token');
  }, 120_000);

  it('fails clearly without any credential', async () => {
    const run = await runActionProcess(workspace, inputs({ build: 'false' }), { GITHUB_SHA: sha('7'), GITHUB_REPOSITORY_ID: REPO_ID });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('(SVC_ACTION_NO_CREDENTIAL)');
    expect(run.outputs.status).toBe('error');
  });
});

/** A loopback proxy that forwards everything but cuts the client connection on the first upload's response. */
async function startCuttingProxy(targetPort: number): Promise<{ url: string; cut: number; keys: string[]; close(): Promise<void> }> {
  const state = { cut: 0, keys: [] as string[] };
  const server: Server = createServer((req, res) => {
    const isUpload = req.method === 'POST' && /\/releases(\?|$)/.test(req.url ?? '');
    if (isUpload) state.keys.push(String(req.headers['idempotency-key']));
    const upstream = httpRequest({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (reply) => {
      if (isUpload && state.cut === 0) {
        // The server created the release; the client never hears about it.
        state.cut++;
        reply.resume();
        reply.once('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.once('error', () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get cut() {
      return state.cut;
    },
    keys: state.keys,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
