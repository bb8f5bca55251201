// End to end: the svc GitHub Action as GitHub runs it (node action/dist/index.js
// with INPUT_*, GITHUB_* and the OIDC token request variables) against the real control plane as a
// child process that trusts a local OIDC issuer (JWKS found through its discovery document).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeResponse } from '../../src/identity/contract.js';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { prepareApp, runActionProcess } from '../action/action-process.js';
import { linkProject } from '../action/link-project.js';
import { startLocalIssuer, type LocalIssuer } from '../action/oidc-issuer.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const REPO_ID = '987654';
const SLUG = 'action-e2e';
let issuer: LocalIssuer;
let platform: StartedPlatform;
let account: TestAccount;
let projectId: string;
let workspace: string;

beforeAll(async () => {
  issuer = await startLocalIssuer({ repository_id: REPO_ID, repository: 'octo/notes' });
  // No SVC_OIDC_JWKS_URL and no SVC_OIDC_AUDIENCE: the JWKS comes from discovery, the audience is the platform's URL.
  platform = await startPlatform({ env: { SVC_OIDC_ISSUER: issuer.issuer } });
  account = await bootstrapAccount(platform.url);
  const me = await account.api<MeResponse>('GET', '/api/me');
  projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Action E2E', slug: SLUG })).project.id;
  linkProject(join(platform.dataDir, 'control.db'), { projectId, repositoryId: Number(REPO_ID), branch: 'main', userId: me.user.id, fullName: 'octo/notes' });
  workspace = await mkdtemp(join(tmpdir(), 'svc-e2e-action-'));
  await prepareApp(workspace, 'healthy');
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  await issuer?.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

const inputs = (extra: Record<string, string> = {}) => ({ server: platform.url, project: SLUG, 'working-directory': 'app', 'retry-base-ms': '100', ...extra });
function github(commit: string, oidc = true): Record<string, string> {
  issuer.claims.sha = commit;
  return {
    GITHUB_SHA: commit,
    GITHUB_REPOSITORY_ID: REPO_ID,
    GITHUB_REPOSITORY: 'octo/notes',
    GITHUB_REF: 'refs/heads/main',
    ...(oidc ? { ACTIONS_ID_TOKEN_REQUEST_URL: issuer.requestUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.requestToken } : {}),
  };
}
const releases = () => account.api<ReleaseListResponse>('GET', `/api/projects/${projectId}/releases`);

async function serving(): Promise<{ app: string; release: string }> {
  const response = await request(`${platform.url}/`, { headers: { host: `${SLUG}.localhost:${platform.port}` } });
  return (await response.body.json()) as { app: string; release: string };
}

describe('svc GitHub Action → control plane (child processes, loopback)', () => {
  it('deploys with GitHub Actions OIDC: release active, outputs and job summary written', async () => {
    const run = await runActionProcess(workspace, inputs(), github('1'.repeat(40)));
    expect(run.exitCode, `${run.stdout}\n${run.stderr}\n${platform.logs().slice(-3000)}`).toBe(0);
    expect(run.outputs).toMatchObject({ status: 'active', url: `http://${SLUG}.localhost:${platform.port}` });
    expect(run.outputs['release-id']).toMatch(/^rel_/);
    expect(run.summary).toContain('### svc deploy: active');
    expect(run.summary).toContain('GitHub Actions OIDC');
    expect(issuer.audiences.at(-1)).toBe(platform.url);
    const list = await releases();
    expect(list.activeReleaseId).toBe(run.outputs['release-id']);
    expect(await serving()).toMatchObject({ app: 'healthy', release: run.outputs['release-id'] });
  }, 180_000);

  it('rejects a replayed OIDC token (same jti) and creates nothing', async () => {
    const before = (await releases()).releases.length;
    issuer.replay = true;
    try {
      const run = await runActionProcess(workspace, inputs({ build: 'false' }), github('1'.repeat(40)));
      expect(run.exitCode).toBe(1);
      expect(run.outputs.status).toBe('error');
      expect(run.stdout).toContain('(SVC_OIDC_TOKEN_REPLAYED)');
      expect(run.summary).toContain('SVC_OIDC_TOKEN_REPLAYED');
    } finally {
      issuer.replay = false;
    }
    expect((await releases()).releases.length).toBe(before);
  }, 120_000);

  it('falls back to a project-scoped token passed as INPUT_TOKEN', async () => {
    await prepareApp(workspace, 'healthy-v2');
    const { accessToken } = await account.api<{ accessToken: string }>('POST', '/api/tokens', { name: 'github actions', projectId, permissions: ['deploy'] });
    const run = await runActionProcess(workspace, inputs({ token: accessToken }), github('2'.repeat(40), false));
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.outputs.status).toBe('active');
    expect(run.summary).toContain('project token');
    expect((await releases()).activeReleaseId).toBe(run.outputs['release-id']);
    expect((await serving()).release).toBe(run.outputs['release-id']);
  }, 180_000);
});
