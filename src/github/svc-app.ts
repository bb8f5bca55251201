// The probot application: one handler per event svc subscribes to (app.yml). The durable queue
// feeds deliveries to probot.receive(); a handler that throws is retried by the queue.
import type { ApplicationFunction } from 'probot';
import type { z } from 'zod';
import type { FeatureContext } from '../core/feature-context.js';
import type { PreviewLifecycle } from '../previews/index.js';
import type { RollbackInput, RollbackResult } from '../releases/index.js';
import type { GithubClient } from './create-github-app.js';
import { handleInstallation, handleInstallationRepos } from './installation-events.js';
import { handlePullRequest } from './pull-request-handler.js';
import { handlePush } from './push-handler.js';
import { rerunCheckRun, rerunCheckSuite } from './rerun-check.js';
import { runCommand } from './run-command.js';
import {
  checkRunPayloadSchema,
  checkSuitePayloadSchema,
  commentPayloadSchema,
  installationPayloadSchema,
  installationReposPayloadSchema,
  pullRequestPayloadSchema,
  pushPayloadSchema,
} from './webhook-payloads.js';

export interface SvcAppDeps {
  ctx: FeatureContext;
  github: GithubClient;
  appId: number;
  buildTimeoutMs: number;
  rollback: (input: RollbackInput) => Promise<RollbackResult>;
  /** Preview environments per pull request (null: pull_request events are ignored). */
  previews: PreviewLifecycle | null;
  wake: () => void;
  /** Every handled delivery's result (logs; tests observe it). */
  onResult?: (event: string, result: unknown) => void;
}

/** The probot app function of svc. */
export function svcGithubApp(deps: SvcAppDeps): ApplicationFunction {
  const { ctx } = deps;
  const report = (event: string, result: unknown): void => {
    ctx.logger.info({ event, result }, 'github event handled');
    deps.onResult?.(event, result);
  };
  // Payloads are validated at the edge; a payload svc cannot read is logged and dropped, not retried.
  const read = <S extends z.ZodType>(schema: S, event: string, payload: unknown): z.infer<S> | null => {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return parsed.data;
    report(event, { outcome: 'ignored', reason: 'invalid_payload', issue: parsed.error.issues[0]?.message });
    return null;
  };
  return (app) => {
    app.on('push', async (context) => {
      const payload = read(pushPayloadSchema, 'push', context.payload);
      if (payload) report('push', handlePush({ ctx, buildTimeoutMs: deps.buildTimeoutMs, wake: deps.wake }, payload));
    });
    app.on('pull_request', async (context) => {
      const payload = read(pullRequestPayloadSchema, 'pull_request', context.payload);
      if (payload) report('pull_request', await handlePullRequest({ ctx, previews: deps.previews, wake: deps.wake }, payload));
    });
    app.on('installation', async (context) => {
      const payload = read(installationPayloadSchema, 'installation', context.payload);
      if (payload) report('installation', handleInstallation(ctx, payload));
    });
    app.on('installation_repositories', async (context) => {
      const payload = read(installationReposPayloadSchema, 'installation_repositories', context.payload);
      if (payload) report('installation_repositories', handleInstallationRepos(ctx, payload));
    });
    app.on('issue_comment.created', async (context) => {
      const payload = read(commentPayloadSchema, 'issue_comment', context.payload);
      if (payload) report('issue_comment', await runCommand({ ctx, github: deps.github, rollback: deps.rollback }, payload));
    });
    app.on('check_run.rerequested', async (context) => {
      const payload = read(checkRunPayloadSchema, 'check_run', context.payload);
      if (payload) report('check_run', await rerunCheckRun({ ...deps }, payload));
    });
    app.on('check_suite.rerequested', async (context) => {
      const payload = read(checkSuitePayloadSchema, 'check_suite', context.payload);
      if (payload) report('check_suite', await rerunCheckSuite({ ...deps }, payload));
    });
  };
}
