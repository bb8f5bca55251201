// A delivery that was accepted (2xx) but not yet processed survives a restart of the control plane;
// check_run.rerequested for checks of other apps or without an artifact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { createProject, ORIGIN, register } from '../platform/harness.js';
import { githubEnv } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { example, pushPayload, signedDelivery } from '../support/fake-github/webhooks.js';
import { INSTALLATION, REPO, REPO_ID, sharedCredentials, START, startGithubHarness, type GithubHarness } from './github-harness.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('durable delivery queue', () => {
  it('processes a delivery accepted before a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-github-restart-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const creds = sharedCredentials();
    const fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
    fake.install(INSTALLATION, 'Codertocat', { [REPO]: REPO_ID });
    const config = testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: ORIGIN, logLevel: 'silent' });
    const build = (concurrency: number): Promise<ControlPlane> =>
      buildControlPlane({
        config,
        clock: manualClock(START),
        logger: createLogger({ level: 'silent' }),
        github: { env: githubEnv(creds, fake.origin), fetch: fake.fetch, queue: { concurrency, pollMs: 50 } },
      });

    // First run: the worker claims nothing (concurrency 0), as if the process died right after answering 202.
    const first = await build(0);
    const owner = await register(first.app, 'owner@example.com');
    const project = await createProject(first.app, owner, { name: 'Hello', slug: 'hello' });
    const link = await first.app.inject({
      method: 'PUT',
      url: `/api/projects/${project.id}/github`,
      headers: owner.headers(),
      payload: { repository: REPO, branch: 'main' },
    });
    expect(link.statusCode).toBe(200);
    const d = signedDelivery(creds.webhookSecret, 'push', pushPayload({ sha: 'e'.repeat(40) }));
    const accepted = await first.app.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body });
    expect(accepted.statusCode).toBe(202);
    await first.close();
    expect(fake.checkRuns).toHaveLength(0);

    // Second run on the same data directory picks the delivery up.
    const second = await build(4);
    cleanups.push(() => second.close());
    for (let i = 0; i < 100 && fake.runs('e'.repeat(40)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.runs('e'.repeat(40), 'svc/release')).toHaveLength(1);
    // And the same delivery id is still known: a redelivery is a duplicate.
    const again = await second.app.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body });
    expect(again.json()).toEqual({ status: 'duplicate' });
  });
});

describe('check re-runs', () => {
  let h: GithubHarness;
  afterEach(async () => {
    await h?.close();
  });

  it('ignores re-runs of other apps’ checks and re-queues a commit without an artifact', async () => {
    h = await startGithubHarness();
    const sha = 'f'.repeat(40);
    await h.deliver('push', pushPayload({ sha }));
    const ours = h.fake.runs(sha, 'svc/release')[0]!;
    const rerun = example('check_run', (p) => p.action === 'rerequested');
    rerun.repository.id = REPO_ID;
    rerun.check_run.head_sha = sha;
    await h.deliver('check_run', rerun); // the example's app id is not ours
    expect(h.results.at(-1)!.result).toBe('not_our_app');
    rerun.check_run.app.id = h.creds.appId;
    rerun.check_run.name = 'svc/release';
    rerun.check_run.id = ours.id;
    await h.deliver('check_run', rerun);
    expect(h.results.at(-1)!.result).toBe('waiting_for_upload');
    expect(h.fake.runs(sha, 'svc/release')).toHaveLength(2);
    expect(h.fake.runs(sha, 'svc/release')[1]!.status).toBe('queued');
    expect(h.fake.invalid).toEqual([]);
  });
});
