// The probot instance svc runs: app JWT + installation tokens (cached), Octokit pointed at the
// configured API base (api.github.com, GHE, or a test server), fetch injectable for unit tests.
// Every GitHub request svc makes goes through the GithubClient built here.
// probot and Octokit weigh several MiB of resident memory: they are imported by the first delivery,
// sync or link check that needs GitHub, never at start-up (only their types are imported here).
import type { Probot } from 'probot';
import type { Logger } from '../core/logger.js';
import type { GithubConfig } from './github-config.js';

/** An authenticated Octokit (REST methods, pagination, retries, throttling). */
export type GithubOctokit = Awaited<ReturnType<Probot['auth']>>;

/** The one effect through which svc talks to GitHub. */
export interface GithubClient {
  /** Octokit authenticated as an installation (token minted with the app's JWT, cached for 59 minutes). */
  installation(installationId: number): Promise<GithubOctokit>;
  /** Octokit authenticated as the app itself (JWT), for `GET /repos/{owner}/{repo}/installation`. */
  app(): Promise<GithubOctokit>;
}

export interface CreateProbotOptions {
  logger: Logger;
  /** fetch used for every GitHub request (tests inject one that checks requests against GitHub's OpenAPI). */
  fetch?: typeof globalThis.fetch;
}

/** Build the probot instance (never listens: svc mounts the webhook route itself); imports probot. */
export async function createProbot(config: GithubConfig, options: CreateProbotOptions): Promise<Probot> {
  const { Probot, ProbotOctokit } = await import('probot');
  const Octokit = ProbotOctokit.defaults({
    throttle: { enabled: config.throttle },
    // svc's durable queue retries with backoff; Octokit's own retries would only stack delays.
    retry: { enabled: false },
    userAgent: 'svc-github-app',
  });
  return new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    baseUrl: config.baseUrl,
    log: options.logger.child({ name: 'probot' }),
    Octokit,
    ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
  });
}

/** The GithubClient of a probot instance that is built on first use. */
export function githubClientOf(probot: () => Promise<Probot>): GithubClient {
  return {
    installation: async (installationId) => (await probot()).auth(installationId),
    app: async () => (await probot()).auth(),
  };
}
