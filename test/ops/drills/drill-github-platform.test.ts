// End to end: the packaged platform's monitor drills a linked project's active release and the
// receipt reaches the fake GitHub as a svc/restore-drill check run on the release's commit.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { saveReleaseSource } from '../../../src/github/commit-store.js';
import { REPO_ID, startGithubHarness, type GithubHarness } from '../../github/github-harness.js';
import { packFixture } from '../../releases/release-support.js';

const ENV = { SVC_OPS_WEBHOOK_SECRET: 'test-webhook-secret-0123456789', SVC_OPS_INTERVAL_MS: 'false', SVC_RESTORE_DRILL_INTERVAL_MS: '60000' };
const SHA = 'a'.repeat(40);

describe('svc/restore-drill from the monitor', () => {
  let h: GithubHarness | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    for (const k of [...Object.keys(ENV), 'SVC_OPS_WEBHOOK_URL']) delete process.env[k];
    await h?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });

  it('posts the receipt of a passed drill as a success check run', async () => {
    server = createServer((req, res) => void req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    Object.assign(process.env, ENV, { SVC_OPS_WEBHOOK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });
    h = await startGithubHarness();
    const artifact = await packFixture('healthy', h.plane.backups.deps.ctx.config.dataDir);
    const upload = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${h.project.id}/releases`,
      headers: h.owner.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': `key-${randomUUID()}`,
      }),
      payload: artifact.bytes,
    });
    const release = upload.json().release as { id: string; status: string };
    expect(release.status, upload.body).toBe('active');
    saveReleaseSource({ db: h.plane.db }, { releaseId: release.id, projectId: h.project.id, sha: SHA, repositoryId: REPO_ID });
    expect((await h.app.inject({ method: 'POST', url: `/api/projects/${h.project.id}/backups`, headers: h.owner.headers() })).statusCode).toBe(201);

    const run = await h.app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: h.owner.headers() });
    expect(run.json().pass, run.body).toMatchObject({ drill: { projectId: h.project.id, outcome: 'passed' } });
    await h.drain();
    const runs = h.fake.runs(SHA, 'svc/restore-drill');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'Restore drill passed (1 checks)' } });
    expect(runs[0]!.output?.summary).toContain(`release \`${release.id}\``);
    expect(h.fake.invalid).toEqual([]);
  }, 120_000);
});
