// What a check run says, as data: the model is what svc knows (phases with times, outcome), and
// renderCheck turns it into the GitHub check-run body (status, conclusion, title, summary). Pure.
import { renderCanaryCheck, type CanaryCheckModel } from './canary-check.js';
import type { CheckRunBody, Phase, PhaseName, RenderContext } from './check-run-body.js';
import { renderPreviewCheck, type PreviewCheckModel } from './preview-check.js';
import { renderRestoreDrillCheck, type RestoreDrillCheckModel } from './restore-drill-check.js';

export type { Phase } from './check-run-body.js';

export interface ReleaseCheckModel {
  kind: 'release';
  state: 'waiting' | 'in_progress' | 'success' | 'failure' | 'superseded' | 'timed_out';
  queuedAt: number;
  releaseId?: string;
  /** The release that was active when this one started (it keeps serving after a failure). */
  priorReleaseId?: string | null;
  phases: Phase[];
  supersededBy?: string;
  /** Why an upload was refused or superseded (shown in the summary). */
  note?: string;
  timeoutMinutes?: number;
  finishedAt?: number;
}

export interface RollbackCheckModel {
  kind: 'rollback';
  state: 'in_progress' | 'success' | 'failure';
  releaseId: string;
  fromReleaseId: string | null;
  restoreData: boolean;
  actor: string;
  startedAt: number;
  finishedAt?: number;
  error?: { code: string; message: string };
}

export type CheckModel = ReleaseCheckModel | RollbackCheckModel | CanaryCheckModel | RestoreDrillCheckModel | PreviewCheckModel;

const phaseLabels: Record<PhaseName, string> = {
  verified: 'Artifact verified',
  snapshot: 'Snapshot taken',
  migrations: 'Migrations applied',
  started: 'Started',
  health: 'Health check passed',
  active: 'Active',
};

const iso = (ms: number): string => new Date(ms).toISOString();
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Render a model into a check-run body. */
export function renderCheck(model: CheckModel, ctx: RenderContext): CheckRunBody {
  const base = { ...(ctx.detailsUrl ? { details_url: ctx.detailsUrl } : {}) };
  if (model.kind === 'rollback') return { ...base, ...renderRollback(model, ctx) };
  if (model.kind === 'canary') return { ...base, ...renderCanaryCheck(model, ctx) };
  if (model.kind === 'restore-drill') return { ...base, ...renderRestoreDrillCheck(model, ctx) };
  // A preview's release phases read exactly as svc/release's (ctx carries the preview's URL and slug).
  if (model.kind === 'preview') return { ...base, ...(renderPreviewCheck(model) ?? renderRelease(asReleaseModel(model), ctx)) };
  return { ...base, ...renderRelease(model, ctx) };
}

function renderRelease(model: ReleaseCheckModel, ctx: RenderContext): Omit<CheckRunBody, 'details_url'> {
  const release = ctx.release;
  const external = model.releaseId ? { external_id: model.releaseId } : {};
  const done = (conclusion: NonNullable<CheckRunBody['conclusion']>) => ({
    status: 'completed' as const,
    conclusion,
    completed_at: iso(model.finishedAt ?? model.queuedAt),
  });
  switch (model.state) {
    case 'waiting':
      return {
        ...external,
        status: 'queued',
        output: { title: 'Waiting for the build', summary: `svc releases this commit to **${ctx.projectSlug}** once CI uploads its artifact.` },
      };
    case 'superseded':
      return {
        ...external,
        ...done('skipped'),
        output: {
          title: `Superseded by ${short(model.supersededBy)}`,
          summary: `A newer commit (${model.supersededBy ?? 'unknown'}) was pushed to the linked branch; svc releases only the newest commit.${model.note ? `\n\n${model.note}` : ''}`,
        },
      };
    case 'timed_out':
      return {
        ...external,
        ...done('timed_out'),
        output: { title: `No build uploaded within ${model.timeoutMinutes ?? '?'} minutes`, summary: timedOutHelp(model, ctx) },
      };
    case 'in_progress': {
      const last = model.phases.at(-1);
      return {
        ...external,
        status: 'in_progress',
        started_at: iso(model.phases[0]?.at ?? model.queuedAt),
        output: {
          title: `Releasing ${model.releaseId ?? ''}${last ? `: ${phaseLabels[last.name].toLowerCase()}` : ''}`.trim(),
          summary: releaseSummary(model, ctx),
        },
      };
    }
    case 'success':
      return {
        ...external,
        ...done('success'),
        started_at: iso(model.phases[0]?.at ?? model.queuedAt),
        output: { title: ctx.appUrl ? `Active at ${ctx.appUrl}` : 'Active', summary: releaseSummary(model, ctx) },
      };
    case 'failure': {
      const failure = release?.failure;
      const title = failure ? `Failed at ${failure.step}: ${failure.code}` : 'Release failed';
      return {
        ...external,
        ...done('failure'),
        started_at: iso(model.phases[0]?.at ?? model.queuedAt),
        output: { title, summary: releaseSummary(model, ctx) },
      };
    }
  }
}

function asReleaseModel(model: PreviewCheckModel): ReleaseCheckModel {
  const state = model.state === 'in_progress' || model.state === 'success' || model.state === 'failure' ? model.state : 'in_progress';
  return {
    kind: 'release',
    state,
    queuedAt: model.queuedAt,
    phases: model.phases,
    ...(model.releaseId ? { releaseId: model.releaseId } : {}),
    ...(model.priorReleaseId !== undefined ? { priorReleaseId: model.priorReleaseId } : {}),
    ...(model.finishedAt !== undefined ? { finishedAt: model.finishedAt } : {}),
  };
}

function releaseSummary(model: ReleaseCheckModel, ctx: RenderContext): string {
  const release = ctx.release;
  const start = model.phases[0]?.at ?? model.queuedAt;
  const lines = [
    `| Release | Digest | Project |`,
    `| --- | --- | --- |`,
    `| \`${model.releaseId ?? '-'}\` | \`${release ? `sha256:${release.digest.slice(0, 16)}` : '-'}\` | ${ctx.projectSlug} |`,
    '',
    '| Phase | After |',
    '| --- | --- |',
    ...model.phases.map((p) => `| ✅ ${phaseLabels[p.name]}${p.detail ? ` (${p.detail})` : ''} | ${seconds(p.at - start)} |`),
  ];
  if (model.state === 'failure') {
    const failure = release?.failure;
    lines.push(`| ❌ ${failure ? `${failure.step}: \`${failure.code}\`` : 'failed'} | ${seconds((model.finishedAt ?? start) - start)} |`, '');
    if (failure) lines.push(`**Reason:** ${failure.message}`, '');
    lines.push(restoredState(model, failure?.step));
  }
  if (model.state === 'success' && ctx.appUrl) lines.push('', `**URL:** ${ctx.appUrl}`);
  if (ctx.detailsUrl) lines.push('', `[Open the release in svc](${ctx.detailsUrl})`);
  return lines.join('\n').slice(0, 60_000);
}

function restoredState(model: ReleaseCheckModel, step: string | undefined): string {
  const serving = model.priorReleaseId
    ? `The previous release \`${model.priorReleaseId}\` is serving again`
    : 'No earlier release was active, so nothing is serving';
  const touchedData = step === 'migrate' || step === 'start' || step === 'health' || step === 'activate' || step === 'recovery';
  return `**Restored state:** ${serving}${touchedData ? '; the database was restored from the pre-deploy snapshot' : '; the database was not touched'}.`;
}

function timedOutHelp(model: ReleaseCheckModel, ctx: RenderContext): string {
  return [
    `No artifact for this commit reached svc within ${model.timeoutMinutes ?? '?'} minutes, so nothing was released to **${ctx.projectSlug}**.`,
    '',
    'Add the svc Action to the workflow that builds this branch (after the build step):',
    '',
    '```yaml',
    'permissions:',
    '  contents: read',
    '  id-token: write   # the Action authenticates to svc with GitHub OIDC',
    'steps:',
    '  - uses: actions/checkout@v4',
    '  - run: npm ci',
    `  - uses: ${ctx.actionRef}`,
    '    with:',
    `      server: ${ctx.serverUrl ?? 'https://<your svc control plane>'}`,
    `      project: ${ctx.projectSlug}`,
    '```',
    '',
    'Then push again, or re-run this check to wait for a new upload. See docs/github-action.md for the complete workflow.',
  ].join('\n');
}

function renderRollback(model: RollbackCheckModel, ctx: RenderContext): Omit<CheckRunBody, 'details_url'> {
  const what = `${model.restoreData ? 'Rollback with data restore' : 'Code-only rollback'} to \`${model.releaseId}\`${model.fromReleaseId ? ` from \`${model.fromReleaseId}\`` : ''}, requested by ${model.actor}.`;
  const data = model.restoreData ? 'The database was restored from the pre-deploy snapshot; writes made after it are gone.' : 'The database is unchanged.';
  const base = { external_id: model.releaseId, started_at: iso(model.startedAt) };
  if (model.state === 'in_progress') return { ...base, status: 'in_progress', output: { title: `Rolling back to ${model.releaseId}`, summary: what } };
  const completed_at = iso(model.finishedAt ?? model.startedAt);
  if (model.state === 'success') {
    return {
      ...base,
      status: 'completed',
      conclusion: 'success',
      completed_at,
      output: { title: `Rolled back to ${model.releaseId}`, summary: `${what}\n\n${data}${ctx.appUrl ? `\n\n**URL:** ${ctx.appUrl}` : ''}` },
    };
  }
  const failed = model.error ? `\`${model.error.code}\`: ${model.error.message}` : 'unknown error';
  return {
    ...base,
    status: 'completed',
    conclusion: 'failure',
    completed_at,
    output: {
      title: `Rollback to ${model.releaseId} failed`,
      summary: `${what}\n\n**Reason:** ${failed}\n\n**Restored state:** ${model.fromReleaseId ? `\`${model.fromReleaseId}\` is serving again` : 'nothing was active'}${model.restoreData ? ' with its data as before the attempt' : ''}.`,
    },
  };
}

function short(sha: string | undefined): string {
  return sha ? sha.slice(0, 7) : 'a newer commit';
}
