// An in-process control plane whose GitHub client talks to a FakeGithub through an injected fetch,
// with a manual clock, an owner, a project linked to Codertocat/Hello-World@main, and helpers to send
// signed deliveries and drain the durable queue.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { createProject, ORIGIN, register, type Browser } from '../platform/harness.js';
import { appCredentials, githubEnv, type AppCredentials } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { signedDelivery } from '../support/fake-github/webhooks.js';

export const REPO = 'Codertocat/Hello-World';
export const REPO_ID = 186853002;
export const INSTALLATION = 957387;
export const PUBLIC_URL = ORIGIN;
export const START = Date.parse('2026-03-01T12:00:00.000Z');

let creds: AppCredentials | undefined;
/** One key pair per test file (RSA generation is slow-ish). */
export function sharedCredentials(): AppCredentials {
  creds ??= appCredentials();
  return creds;
}

export interface GithubHarness {
  plane: ControlPlane;
  app: FastifyInstance;
  fake: FakeGithub;
  clock: ReturnType<typeof manualClock>;
  creds: AppCredentials;
  owner: Browser;
  project: { id: string; slug: string; organizationId: string };
  results: { event: string; result: unknown }[];
  /** Send a signed delivery to the webhook route (does not drain the queue). */
  send(event: string, payload: unknown, options?: { id?: string; signatureSecret?: string }): Promise<LightMyRequestResponse>;
  /** Send, then run queued jobs until idle. */
  deliver(event: string, payload: unknown, options?: { id?: string }): Promise<LightMyRequestResponse>;
  drain(): Promise<number>;
  link(body?: Record<string, unknown>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Start a harness; `linked: false` leaves the project unlinked. */
export async function startGithubHarness(options: { linked?: boolean; env?: Record<string, string> } = {}): Promise<GithubHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-github-'));
  const clock = manualClock(START);
  const c = sharedCredentials();
  const fake = new FakeGithub({ appId: c.appId, publicKey: c.publicKey });
  fake.install(INSTALLATION, 'Codertocat', { [REPO]: REPO_ID });
  const results: GithubHarness['results'] = [];
  const config = testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: PUBLIC_URL, logLevel: 'silent' });
  const plane = await buildControlPlane({
    config,
    clock,
    logger: createLogger({ level: 'silent' }),
    github: {
      env: githubEnv(c, fake.origin, { SVC_GITHUB_BUILD_TIMEOUT_SECONDS: '600', ...options.env }),
      fetch: fake.fetch,
      queue: { pollMs: 10_000, backoffMs: 1_000 },
      onResult: (event, result) => results.push({ event, result }),
    },
  });
  const app = plane.app;
  const owner = await register(app, 'owner@example.com');
  const project = await createProject(app, owner, { name: 'Hello', slug: 'hello' });
  const send = (event: string, payload: unknown, o: { id?: string; signatureSecret?: string } = {}) => {
    const d = signedDelivery(c.webhookSecret, event, payload, o);
    return app.inject({ method: 'POST', url: '/api/github/webhooks', headers: d.headers, payload: d.body });
  };
  const drain = () => plane.github.queue.runUntilIdle();
  const h: GithubHarness = {
    plane,
    app,
    fake,
    clock,
    creds: c,
    owner,
    project,
    results,
    send,
    drain,
    async deliver(event, payload, o = {}) {
      const res = await send(event, payload, o);
      await drain();
      return res;
    },
    link: (body = {}) =>
      app.inject({
        method: 'PUT',
        url: `/api/projects/${project.id}/github`,
        headers: owner.headers(),
        payload: { repository: REPO, branch: 'main', ...body },
      }),
    async close() {
      await plane.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (options.linked !== false) {
    const res = await h.link();
    if (res.statusCode !== 200) throw new Error(`link failed: ${res.body}`);
  }
  return h;
}
