// A control plane for the GitHub side of previews: the plane's own GitHub feature stays unconfigured, and
// a second GitHub feature is built on the same control database with a FakeGithub (injected fetch), a
// manual clock and a small in-test PreviewLifecycle (the real one belongs to src/previews and is tested
// end to end there). A project linked to Codertocat/Hello-World@main (rows written as the link route
// does), a second real project standing in for pull request #7's preview project, signed deliveries to
// the feature's webhook route, the durable queue drained by hand, and a helper that takes a preview
// release through the observer hooks the release pipeline calls, on real release rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { parseDeployConfig } from '../../src/artifacts/deploy-config.js';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createHttpApp, type HttpApp } from '../../src/core/http/create-http-app.js';
import { createLogger } from '../../src/core/logger.js';
import { createGithub, type GithubFeature } from '../../src/github/index.js';
import { addInstallationRepos, upsertInstallation } from '../../src/github/installation-store.js';
import { saveLink } from '../../src/github/link-store.js';
import type { PreviewIdentity, PreviewLifecycle, PreviewOpenOutcome, PullRequestInput } from '../../src/previews/preview-lifecycle.js';
import { insertCandidate } from '../../src/releases/release-store.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { createProject, ORIGIN, register, type Browser } from '../platform/harness.js';
import { githubEnv } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { signedDelivery } from '../support/fake-github/webhooks.js';
import { INSTALLATION, REPO, REPO_ID, sharedCredentials, START } from './github-harness.js';

export { INSTALLATION, REPO, REPO_ID };

/** The in-test lifecycle: previews kept in a map, a live limit, every call recorded. */
export class TestPreviews implements PreviewLifecycle {
  readonly live = new Map<number, PreviewIdentity>();
  readonly calls: { op: 'open' | 'close'; input: unknown }[] = [];
  limit = 5;

  constructor(private readonly projectOf: (number: number) => string) {}

  async open(input: PullRequestInput): Promise<PreviewOpenOutcome> {
    this.calls.push({ op: 'open', input });
    if (input.fork) return { kind: 'fork' };
    const known = this.live.get(input.number);
    if (!known && this.live.size >= this.limit) return { kind: 'limit', limit: this.limit, live: this.live.size };
    const preview: PreviewIdentity = {
      previewProjectId: this.projectOf(input.number),
      parentProjectId: input.parentProjectId,
      number: input.number,
      url: `http://pr-${input.number}--hello.localhost:7070`,
      headSha: input.headSha,
    };
    this.live.set(input.number, preview);
    return { kind: 'ready', previewProjectId: preview.previewProjectId, url: preview.url, created: !known };
  }

  async close(input: { parentProjectId: string; number: number; merged: boolean }): Promise<{ removed: boolean }> {
    this.calls.push({ op: 'close', input });
    return { removed: this.live.delete(input.number) };
  }

  previewOf(projectId: string): PreviewIdentity | null {
    return [...this.live.values()].find((p) => p.previewProjectId === projectId) ?? null;
  }

  find(parentProjectId: string, number: number): PreviewIdentity | null {
    const preview = this.live.get(number);
    return preview && preview.parentProjectId === parentProjectId ? preview : null;
  }
}

export interface PreviewHarness {
  plane: ControlPlane;
  github: GithubFeature;
  fake: FakeGithub;
  previews: TestPreviews;
  clock: ReturnType<typeof manualClock>;
  owner: Browser;
  project: { id: string; slug: string };
  /** The real project pull request #7's preview uses. */
  previewProject: { id: string; slug: string };
  results: { event: string; result: unknown }[];
  deliver(event: string, payload: unknown, options?: { id?: string }): Promise<LightMyRequestResponse>;
  drain(): Promise<number>;
  /**
   * A release of the preview project built from `sha`, taken through the observer hooks in the order the
   * release pipeline calls them (admit throws when refused), ending active or failed (`missOutcome`: the
   * outcome hook is not called, as across a crash).
   */
  previewRelease(
    sha: string,
    outcome: 'active' | { step: string; code: string; message: string },
    options?: { projectId?: string; missOutcome?: boolean },
  ): string;
  close(): Promise<void>;
}

export async function startPreviewHarness(): Promise<PreviewHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-github-previews-'));
  const clock = manualClock(START);
  const creds = sharedCredentials();
  const fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
  fake.install(INSTALLATION, 'Codertocat', { [REPO]: REPO_ID });
  const results: PreviewHarness['results'] = [];
  const logger = createLogger({ level: 'silent' });
  const config = testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: ORIGIN, logLevel: 'silent' });
  const plane = await buildControlPlane({ config, clock, logger, github: { env: {} } });
  const owner = await register(plane.app, 'owner@example.com');
  const project = await createProject(plane.app, owner, { name: 'Hello', slug: 'hello' });
  const previewProject = await createProject(plane.app, owner, { name: 'Hello PR 7', slug: 'hello-pr-7' });
  const ctx = plane.context;
  upsertInstallation(ctx, { id: INSTALLATION, accountLogin: 'Codertocat', accountType: 'User', status: 'active', repositorySelection: 'selected' });
  addInstallationRepos(ctx, INSTALLATION, [{ id: REPO_ID, full_name: REPO }]);
  saveLink(ctx, {
    project_id: project.id,
    repository_id: REPO_ID,
    full_name: REPO,
    branch: 'main',
    installation_id: INSTALLATION,
    rollback_permission: 'write',
    environment: 'production',
    created_by: 'test',
  });
  const previews = new TestPreviews((number) => (number === 7 ? previewProject.id : `prj_preview_${number}`));
  const github = createGithub(
    ctx,
    { rollback: (input) => plane.releases.rollback(input) },
    {
      env: githubEnv(creds, fake.origin),
      fetch: fake.fetch,
      queue: { pollMs: 10_000, backoffMs: 1_000 },
      onResult: (event, result) => results.push({ event, result }),
    },
    previews,
  );
  const hooks: HttpApp = await createHttpApp({ logger, bodyLimitBytes: 1_000_000, trustProxy: false, version: 'test' });
  await github.routes(hooks);
  await hooks.ready();
  const drain = () => github.queue.runUntilIdle();
  const observer = github.observer;
  return {
    plane,
    github,
    fake,
    previews,
    clock,
    owner,
    project,
    previewProject,
    results,
    drain,
    async deliver(event, payload, o = {}) {
      const d = signedDelivery(creds.webhookSecret, event, payload, o);
      const res = await hooks.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body });
      await drain();
      return res;
    },
    previewRelease(sha, outcome, options = {}) {
      const projectId = options.projectId ?? previewProject.id;
      const source = { commitSha: sha, repositoryId: REPO_ID };
      observer.admit!(projectId, source);
      const row = ctx.db.transaction(() => {
        const candidate = insertCandidate(ctx, {
          projectId,
          digest: sha.slice(0, 8).padEnd(64, '0'),
          gzipBytes: 100,
          bundleBytes: 200,
          fileCount: 2,
          config: parseDeployConfig({ version: 1, entry: 'dist/server.js' }),
          idempotencyKey: `key-${sha}-${clock.now()}`,
          createdBy: { type: 'user', id: 'test', name: null },
        });
        observer.onCandidate!({ id: candidate.id, projectId }, source);
        return candidate;
      })();
      const release = { id: row.id, projectId };
      clock.advance(500);
      observer.onPhase!(release, 'snapshot', { done: true, snapshotBytes: 4096 });
      observer.onPhase!(release, 'migrate', { done: true, applied: ['001_init.sql'] });
      clock.advance(500);
      observer.onPhase!(release, 'health', {});
      if (outcome === 'active') {
        observer.onPhase!(release, 'activate', {});
        ctx.db.prepare("UPDATE releases SET status = 'inactive' WHERE project_id = ? AND status = 'active'").run(projectId);
        ctx.db
          .prepare("UPDATE releases SET status = 'active', step = NULL, activated_at = ?, finished_at = ? WHERE id = ?")
          .run(clock.now(), clock.now(), row.id);
      } else {
        ctx.db
          .prepare("UPDATE releases SET status = 'failed', step = NULL, finished_at = ?, failure_step = ?, failure_code = ?, failure_message = ? WHERE id = ?")
          .run(clock.now(), outcome.step, outcome.code, outcome.message, row.id);
      }
      if (!options.missOutcome) observer.onOutcome!(release);
      return row.id;
    },
    async close() {
      await github.close();
      await hooks.close();
      await plane.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
