// The canary feature as the composition root sees it: the release transaction's canary hooks (plan,
// run, settle), the report route, and boot handling of runs a dead control plane left `running`.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { defaultHttpClient } from '../core/http/http-client.js';
import type { Ingress } from '../ingress/index.js';
import type { ReleaseCanaryHooks, ReleaseCanaryRun } from '../releases/index.js';
import { runCanary, type CanaryControllerDeps } from './canary-controller.js';
import { observeCanary, type CanaryObserver } from './canary-observer.js';
import { routeTableCanaryRouting } from './canary-routing.js';
import { canaryRoutes } from './canary-routes.js';
import { CanaryStore } from './canary-store.js';
import { defaultCanaryPolicy, policyFromConfig, stageMetrics, type CanaryPolicy } from './stage-policy.js';

export interface CanaryOptions {
  /** Receives stage events (GitHub reports them as the `svc/canary` check run). */
  observer?: CanaryObserver;
  /** Whether a deploy still has deployment authority beyond the project lock (e.g. not superseded); false fails the canary. */
  authority?: (projectId: string, releaseId: string) => boolean | Promise<boolean>;
  /** Projects with point-in-time recovery on: a candidate would be a second writer to the journaled database, so their canaries fail closed. */
  recoveryEnabled?: (projectId: string) => boolean;
  /** Controller intervals (tests shorten them). */
  tickMs?: number;
  checkEveryMs?: number;
  drainMs?: number;
}

export interface CanaryFeature {
  hooks: ReleaseCanaryHooks;
  store: CanaryStore;
  routes: (app: HttpApp) => Promise<void>;
  /** Boot: mark runs left `running` by a dead control plane `interrupted` (the prior release stays active). */
  start(): number;
}

/** Build the canary feature over the ingress (route split + request records). */
export function createCanary(ctx: FeatureContext, ingress: Pick<Ingress, 'routes' | 'onRequestComplete'>, options: CanaryOptions = {}): CanaryFeature {
  const store = new CanaryStore(ctx);
  const observer = options.observer;
  const authority = options.authority;
  const controller = (): CanaryControllerDeps => ({
    store,
    clock: ctx.clock,
    logger: ctx.logger,
    routing: routeTableCanaryRouting(ingress.routes),
    subscribe: (fn) => ingress.onRequestComplete(fn),
    ...(observer ? { observer } : {}),
    ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
    ...(options.checkEveryMs !== undefined ? { checkEveryMs: options.checkEveryMs } : {}),
    ...(options.drainMs !== undefined ? { drainMs: options.drainMs } : {}),
  });

  const hooks: ReleaseCanaryHooks = {
    begin(input) {
      const policy: CanaryPolicy | null = input.config.canary ? policyFromConfig(input.config.canary) : input.requested ? defaultCanaryPolicy : null;
      if (policy === null) return null;
      const base = { projectId: input.projectId, releaseId: input.releaseId, baselineReleaseId: input.baselineReleaseId, policy };
      // Placed projects run canaries too; a node (provider) that cannot refuses its canary generation with SVC_CANARY_PROVIDER_UNSUPPORTED.
      const refusal = options.recoveryEnabled?.(input.projectId)
        ? new SvcError(
            'SVC_CANARY_RECOVERY_ENABLED',
            'Canary rollouts are refused while point-in-time recovery is enabled: the candidate would be a second writer to the journaled database. Deploy without a canary.',
          )
        : null;
      if (refusal) {
        // Refused during verify: the baseline was never stopped, snapshotted or migrated.
        store.createRun({ ...base, state: 'rejected', failure: { code: refusal.code, message: refusal.message } });
        throw refusal;
      }
      const runId = store.createRun(base);
      let started = false;
      const event = (kind: 'promoted' | 'failed' | 'rejected', code: string | null, message: string | null) =>
        observeCanary(ctx.logger, observer, {
          runId,
          projectId: input.projectId,
          releaseId: input.releaseId,
          state: kind,
          stageIndex: 0,
          stageCount: policy.stages.length,
          trafficPercent: 0,
          kind,
          reason: message,
          code,
          metrics: stageMetrics([]),
        });
      const run: ReleaseCanaryRun = {
        async run(app, health) {
          started = true;
          const url = `http://${app.host.includes(':') ? `[${app.host}]` : app.host}:${app.port}${health.path}`;
          const outcome = await runCanary(controller(), {
            runId,
            projectId: input.projectId,
            releaseId: input.releaseId,
            policy,
            // A local app's exit, or a runner node no longer showing its candidate.
            candidate: { host: app.host, port: app.port, releaseId: input.releaseId, onExit: (listener) => app.onExit(() => listener()) },
            health: async () => {
              // Like the release's health check: a redirect is not followed, so it is not healthy.
              const answer = await defaultHttpClient.open({ method: 'GET', url, timeoutMs: 2_000 });
              answer.discard();
              return answer.status >= 200 && answer.status < 300;
            },
            // The project lock (checked by the release transaction) and any deployment authority.
            authority: async () => (await input.authority()) && (authority ? await authority(input.projectId, input.releaseId) : true),
          });
          if (!outcome.promoted)
            throw new SvcError(outcome.code, `The canary failed (${outcome.reason}); the prior release keeps serving.`, {
              details: { reason: outcome.reason, runId },
            });
        },
        settle(result) {
          if (result.ok) {
            if (store.finishRun(runId, 'promoted', null)) event('promoted', null, null);
            return;
          }
          const state = started ? 'failed' : 'rejected';
          if (store.finishRun(runId, state, { code: result.code, message: result.message })) event(state, result.code, result.message);
        },
      };
      return run;
    },
  };

  return {
    hooks,
    store,
    routes: canaryRoutes(ctx, store),
    start: () => store.markInterrupted('The control plane restarted during the canary; the prior release was retained.'),
  };
}
