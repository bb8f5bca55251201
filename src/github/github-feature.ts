// The GitHub integration as the composition root sees it: the release observer, the routes
// (webhook, link, installations), the durable queue worker and the periodic sweep.
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import type { Probot } from 'probot';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import type { CanaryObserver } from '../canary/index.js';
import type { PreviewLifecycle } from '../previews/index.js';
import type { ReleaseObserver, RollbackInput, RollbackResult } from '../releases/index.js';
import { createCanaryReporter } from './canary-reporter.js';
import { createDrillReporter } from './drill-reporter.js';
import type { DrillReceiptEvent } from './restore-drill-check.js';
import { createProbot, githubClientOf, type GithubClient } from './create-github-app.js';
import { parseGithubConfig, type GithubConfig } from './github-config.js';
import { JobQueue, type QueueOptions } from './job-queue.js';
import { linkRoutes } from './link-routes.js';
import { createPreviewReporter } from './preview-reporter.js';
import { createReleaseReporter } from './release-reporter.js';
import { svcGithubApp } from './svc-app.js';
import { sweepChecks } from './sweep-checks.js';
import { syncCheck, syncDeployment } from './sync-github.js';
import { syncPreviewComment } from './sync-preview-comment.js';
import { webhookRoute } from './webhook-route.js';

export interface GithubOptions {
  /** Environment with APP_ID, PRIVATE_KEY(_PATH), WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL, SVC_GITHUB_* (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** fetch for every GitHub request (tests). */
  fetch?: typeof globalThis.fetch;
  queue?: QueueOptions;
  /** Observe handled deliveries (tests). */
  onResult?: (event: string, result: unknown) => void;
}

export interface GithubFeature {
  /** Null when no GitHub App is configured (webhooks answer SVC_GITHUB_NOT_CONFIGURED; links still show). */
  config: GithubConfig | null;
  observer: ReleaseObserver;
  /** Observer of canary runs (the svc/canary check run). */
  canaryObserver: CanaryObserver;
  /** Each restore drill receipt of a linked project becomes a svc/restore-drill check run. */
  drillObserver: { onDrillReceipt(receipt: DrillReceiptEvent): void };
  routes: (app: HttpApp) => Promise<void>;
  queue: JobQueue;
  /** Time out overdue checks and complete checks whose release ended; also runs periodically. */
  sweep(): { timedOut: number; reconciled: number };
  /** Resume queued deliveries and syncs, and the periodic sweep. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** What the GitHub feature asks of releases: roll back as `svc rollback` does (PR commands, check re-runs). */
export interface GithubReleases {
  rollback(input: RollbackInput): Promise<RollbackResult>;
}

/**
 * Build the GitHub feature (nothing runs until start()). With `previews`, pull requests into a linked
 * branch get a preview (svc/preview check, transient Deployment, one comment) and preview projects'
 * releases are reported there; without it pull_request events are ignored.
 */
export function createGithub(ctx: FeatureContext, releases: GithubReleases, options: GithubOptions = {}, previews?: PreviewLifecycle): GithubFeature {
  const config = parseGithubConfig(options.env ?? process.env);
  // probot is built, with svc's handlers loaded, by the first delivery or GitHub request (see create-github-app.ts).
  let loading: Promise<Probot> | null = null;
  const probot = (): Promise<Probot> => {
    if (!config) return Promise.reject(new Error('GitHub App is not configured'));
    loading ??= loadProbot(config).catch((error: unknown) => {
      loading = null; // a failed import or build is tried again by the next job
      throw error;
    });
    return loading;
  };
  const github: GithubClient | null = config ? githubClientOf(probot) : null;
  const loadProbot = async (settings: GithubConfig): Promise<Probot> => {
    const instance = await createProbot(settings, { logger: ctx.logger, ...(options.fetch ? { fetch: options.fetch } : {}) });
    await instance.load(
      svcGithubApp({
        ctx,
        github: githubClientOf(probot),
        appId: settings.appId,
        buildTimeoutMs: settings.buildTimeoutMs,
        rollback: (input) => releases.rollback(input),
        previews: previews ?? null,
        wake,
        ...(options.onResult ? { onResult: options.onResult } : {}),
      }),
    );
    return instance;
  };
  const wake = (): void => queue.wake();
  const needGithub = (): GithubClient => {
    if (!github) throw new Error('GitHub App is not configured');
    return github;
  };
  const syncDeps = () => ({ ctx, github: needGithub(), actionRef: config?.actionRef ?? '' });
  const queue = new JobQueue(
    ctx,
    {
      delivery: async (payload) => (await probot()).receive(payload as EmitterWebhookEvent),
      'sync-check': async (payload, job) => syncCheck(syncDeps(), (payload as { checkId: string }).checkId, job.attempts > 0),
      'sync-deployment': async (payload) => syncDeployment(syncDeps(), (payload as { releaseId: string }).releaseId),
      'sync-preview-comment': async (payload) => {
        const { projectId, number } = payload as { projectId: string; number: number };
        await syncPreviewComment({ ...syncDeps(), appId: config?.appId ?? 0 }, projectId, number);
      },
    },
    options.queue,
  );
  let timer: NodeJS.Timeout | null = null;
  const sweep = () => {
    const result = sweepChecks(ctx, config?.buildTimeoutMs ?? 3_600_000);
    if (result.timedOut + result.reconciled > 0) wake();
    return result;
  };

  return {
    config,
    observer: previews
      ? routeReleases(createReleaseReporter({ ctx, wake }), createPreviewReporter({ ctx, wake, previews }))
      : createReleaseReporter({ ctx, wake }),
    canaryObserver: createCanaryReporter({ ctx, wake }),
    drillObserver: createDrillReporter({ ctx, wake }),
    queue,
    routes: async (app) => {
      await webhookRoute({ ctx, secret: config?.webhookSecret ?? null, wake })(app);
      await linkRoutes(ctx, () => github)(app);
    },
    sweep,
    async start() {
      if (!config) return; // unconfigured: nothing to deliver or sync
      queue.start();
      timer = setInterval(() => {
        try {
          sweep();
        } catch (error) {
          ctx.logger.error({ err: error }, 'github sweep failed');
        }
      }, config.sweepIntervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await queue.close();
    },
  };
}

/** Preview projects' releases go to the preview reporter only, every other project's to the release reporter. */
function routeReleases(production: ReleaseObserver, preview: ReturnType<typeof createPreviewReporter>): ReleaseObserver {
  const pick = (projectId: string): ReleaseObserver => (preview.owns(projectId) ? preview.observer : production);
  return {
    admit: (projectId, source) => pick(projectId).admit?.(projectId, source),
    onCandidate: (release, source) => pick(release.projectId).onCandidate?.(release, source),
    onPhase: (release, step, details) => pick(release.projectId).onPhase?.(release, step, details),
    onOutcome: (release) => pick(release.projectId).onOutcome?.(release),
    onRollback: (event) => pick(event.projectId).onRollback?.(event),
  };
}
