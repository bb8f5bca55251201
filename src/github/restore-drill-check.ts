// The svc/restore-drill check run: one completed run per restore drill receipt of a linked project,
// on the commit of the release whose code the drill booted. Pure render; drill-reporter.ts writes the rows.
import type { CheckRunBody, RenderContext } from './check-run-body.js';

/** A drill receipt as the operations monitor stores it (structural; src/ops owns the type). */
export interface DrillReceiptEvent {
  id: string;
  projectId: string;
  releaseId: string | null;
  backupId: string;
  startedAt: number;
  finishedAt: number;
  outcome: 'passed' | 'failed' | 'setup-failed';
  code: string | null;
  error: string | null;
  checks: { name: string; path: string; expected: number; status: number | null; ok: boolean }[];
}

export interface RestoreDrillCheckModel {
  kind: 'restore-drill';
  state: 'success' | 'failure';
  /** The booted release (for details_url and the summary). */
  releaseId: string;
  receipt: Omit<DrillReceiptEvent, 'projectId' | 'releaseId'>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Render a drill model into a completed check-run body. */
export function renderRestoreDrillCheck(model: RestoreDrillCheckModel, ctx: RenderContext): Omit<CheckRunBody, 'details_url'> {
  const r = model.receipt;
  const title =
    r.outcome === 'passed'
      ? `Restore drill passed (${r.checks.length} checks)`
      : r.outcome === 'setup-failed'
        ? 'Restore drill could not restore the backup'
        : 'Restore drill failed';
  const summary = [
    `Restore drill of **${ctx.projectSlug}**: backup \`${r.backupId}\` restored into a private copy and release \`${model.releaseId}\` booted on it. Production data was not touched.`,
    '',
    '| Check | Path | Expected | Got |',
    '| --- | --- | --- | --- |',
    ...r.checks.map((c) => `| ${c.ok ? '✅' : '❌'} ${c.name} | \`${c.path}\` | ${c.expected} | ${c.status ?? 'no answer'} |`),
    ...(r.code ? ['', `**Reason:** \`${r.code}\`${r.error ? `: ${r.error}` : ''}`] : []),
    '',
    `Duration: ${((r.finishedAt - r.startedAt) / 1000).toFixed(1)} s. Receipt \`${r.id}\`.`,
  ].join('\n');
  return {
    external_id: r.id,
    status: 'completed',
    conclusion: model.state,
    started_at: iso(r.startedAt),
    completed_at: iso(r.finishedAt),
    output: { title, summary },
  };
}
