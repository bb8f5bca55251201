// The upload route with OIDC bearers on a real in-process control plane: concurrent use of one token
// (exactly one wins), JWTs refused everywhere but the upload route, and OIDC switched off.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { testPlatformConfig } from '../../../src/core/config.js';
import { buildControlPlane, type ControlPlane } from '../../../src/platform.js';
import { createProject, ORIGIN, register, type Browser } from '../../platform/harness.js';
import { packFixture, removeDataDir, type Artifact } from '../../releases/release-support.js';
import { linkProject } from '../../action/link-project.js';
import { startLocalIssuer, type LocalIssuer } from '../../action/oidc-issuer.js';

const SHA = 'c'.repeat(40);
let issuer: LocalIssuer;
let dir: string;
let plane: ControlPlane;
let owner: Browser;
let project: { id: string; slug: string };
let artifact: Artifact;

beforeAll(async () => {
  issuer = await startLocalIssuer({ repository_id: '77', sha: SHA });
  dir = await mkdtemp(join(tmpdir(), 'svc-oidc-route-'));
  const config = testPlatformConfig({
    dataDir: join(dir, 'data'),
    publicUrl: ORIGIN,
    logLevel: 'silent',
    oidcIssuer: issuer.issuer,
    oidcJwksUrl: issuer.jwksUrl,
  });
  plane = await buildControlPlane({ config, logger: createLogger({ level: 'silent' }) });
  owner = await register(plane.app, 'oidc-owner@example.com');
  project = await createProject(plane.app, owner, { name: 'Notes', slug: 'notes' });
  linkProject(join(dir, 'data', 'control.db'), { projectId: project.id, repositoryId: 77, branch: 'main', userId: owner.userId });
  artifact = await packFixture('healthy', dir);
}, 60_000);

afterAll(async () => {
  await plane?.close();
  await issuer?.close();
  if (dir) await removeDataDir(dir);
  await rm(dir, { recursive: true, force: true });
});

function upload(p: ControlPlane, token: string, key: string) {
  return p.app.inject({
    method: 'POST',
    url: `/api/projects/notes/releases`,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': key,
      'x-svc-commit-sha': SHA,
      'x-svc-repository-id': '77',
    },
    payload: artifact.bytes,
  });
}

describe('OIDC on the upload route', () => {
  it('lets exactly one of two concurrent uploads with the same token through', async () => {
    const token = await issuer.sign({ audience: ORIGIN });
    const results = await Promise.all([upload(plane, token, 'oidc-race-key-1'), upload(plane, token, 'oidc-race-key-2')]);
    const codes = results.map((r) => (r.statusCode < 300 ? 'ok' : (r.json() as { error: { code: string } }).error.code)).sort();
    expect(codes).toEqual(['SVC_OIDC_TOKEN_REPLAYED', 'ok']);
    const created = results.find((r) => r.statusCode < 300)!.json() as { release: { status: string; createdBy: { type: string; name: string } } };
    expect(created.release.status).toBe('active');
    expect(created.release.createdBy).toMatchObject({ type: 'token' });
    expect(created.release.createdBy.name).toContain('oidc-owner@example.com (token GitHub Actions OIDC');
  }, 60_000);

  it('refuses an OIDC token on every other route (it is an upload credential only)', async () => {
    const token = await issuer.sign({ audience: ORIGIN });
    for (const url of [`/api/projects/${project.id}/releases`, `/api/projects/${project.id}`, '/api/me']) {
      const res = await plane.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(401);
      expect((res.json() as { error: { code: string } }).error.code).toBe('SVC_TOKEN_INVALID');
    }
  });

  it('refuses a token for a project that is not linked to its repository', async () => {
    await createProject(plane.app, owner, { name: 'Other', slug: 'other' });
    const token = await issuer.sign({ audience: ORIGIN });
    const res = await plane.app.inject({
      method: 'POST',
      url: '/api/projects/other/releases',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'oidc-other-key',
        'x-svc-commit-sha': SHA,
      },
      payload: artifact.bytes,
    });
    expect((res.json() as { error: { code: string } }).error.code).toBe('SVC_OIDC_PROJECT_NOT_LINKED');
    expect(res.statusCode).toBe(403);
  });

  it('treats JWTs as invalid tokens when OIDC is off (SVC_OIDC_ISSUER=off)', async () => {
    const offDir = await mkdtemp(join(tmpdir(), 'svc-oidc-off-'));
    const off = await buildControlPlane({
      config: testPlatformConfig({ dataDir: join(offDir, 'data'), publicUrl: ORIGIN, logLevel: 'silent', oidcIssuer: null }),
      logger: createLogger({ level: 'silent' }),
    });
    try {
      const res = await upload(off, await issuer.sign({ audience: ORIGIN }), 'oidc-off-key-1');
      expect((res.json() as { error: { code: string } }).error.code).toBe('SVC_TOKEN_INVALID');
    } finally {
      await off.close();
      await rm(offDir, { recursive: true, force: true });
    }
  });
});
