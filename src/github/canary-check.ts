// The svc/canary check run: one per canary run, updated at every stage (traffic share, samples,
// error rate, p95) and completed when the release is promoted or the canary fails. Pure render.
import type { CheckRunBody, RenderContext } from './check-run-body.js';

export interface CanaryStage {
  index: number;
  percent: number;
  startedAt: number;
  passedAt?: number;
  metrics?: { samples: number; errorRate: number; p95Ms: number };
}

export interface CanaryCheckModel {
  kind: 'canary';
  state: 'in_progress' | 'success' | 'failure';
  runId: string;
  releaseId: string;
  stageCount: number;
  stages: CanaryStage[];
  startedAt: number;
  finishedAt?: number;
  /** Why the canary failed or was rejected. */
  failure?: { code: string | null; reason: string | null };
}

const iso = (ms: number): string => new Date(ms).toISOString();

function stageTable(model: CanaryCheckModel): string[] {
  return [
    '| Stage | Traffic | Samples | Error rate | p95 | Result |',
    '| --- | --- | --- | --- | --- | --- |',
    ...model.stages.map((s) => {
      const m = s.metrics;
      const result = s.passedAt !== undefined ? '✅ passed' : model.state === 'failure' && s === model.stages.at(-1) ? '❌ failed' : '⏳ running';
      return `| ${s.index + 1}/${model.stageCount} | ${s.percent}% | ${m ? m.samples : '-'} | ${m ? `${(m.errorRate * 100).toFixed(2)}%` : '-'} | ${m ? `${Math.round(m.p95Ms)} ms` : '-'} | ${result} |`;
    }),
  ];
}

/** Render a canary model into a check-run body. */
export function renderCanaryCheck(model: CanaryCheckModel, ctx: RenderContext): Omit<CheckRunBody, 'details_url'> {
  const base = { external_id: model.runId, started_at: iso(model.startedAt) };
  const current = model.stages.at(-1);
  const head = `Canary of \`${model.releaseId}\` on **${ctx.projectSlug}** (run \`${model.runId}\`).`;
  if (model.state === 'in_progress') {
    return {
      ...base,
      status: 'in_progress',
      output: {
        title: current ? `Stage ${current.index + 1}/${model.stageCount}: ${current.percent}% of traffic` : 'Starting the canary',
        summary: [head, '', ...stageTable(model)].join('\n'),
      },
    };
  }
  const completed_at = iso(model.finishedAt ?? model.startedAt);
  if (model.state === 'success') {
    return {
      ...base,
      status: 'completed',
      conclusion: 'success',
      completed_at,
      output: {
        title: `Promoted after ${model.stageCount} stages`,
        summary: [head, '', ...stageTable(model), '', ctx.appUrl ? `**URL:** ${ctx.appUrl}` : ''].join('\n'),
      },
    };
  }
  const why = model.failure?.code
    ? `\`${model.failure.code}\`${model.failure.reason ? `: ${model.failure.reason}` : ''}`
    : (model.failure?.reason ?? 'unknown');
  return {
    ...base,
    status: 'completed',
    conclusion: 'failure',
    completed_at,
    output: {
      title: `Canary failed${current ? ` at stage ${current.index + 1}/${model.stageCount}` : ''}`,
      summary: [head, '', ...stageTable(model), '', `**Reason:** ${why}`, '', '**Restored state:** all traffic is back on the previous release.'].join('\n'),
    },
  };
}
