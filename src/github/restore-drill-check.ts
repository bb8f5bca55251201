// The svc/restore-drill check run: one completed run per restore drill receipt of a linked project,
// on the commit of the release whose code the drill booted. Pure render, plus the reporter that
// only writes a check row (the queue syncs it to GitHub like every other check).
import type { FeatureContext } from '../core/feature-context.js';
import type { CheckRunBody, RenderContext } from './check-model.js';
import { createCheck } from './check-store.js';
import { releaseSource } from './commit-store.js';
import { findLink, problemOf } from './link-store.js';

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
  const title = r.outcome === 'passed' ? `Restore drill passed (${r.checks.length} checks)` : r.outcome === 'setup-failed' ? 'Restore drill could not restore the backup' : 'Restore drill failed';
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
  return { external_id: r.id, status: 'completed', conclusion: model.state, started_at: iso(r.startedAt), completed_at: iso(r.finishedAt), output: { title, summary } };
}

/** The observer src/ops calls with each stored receipt: a check row when the project is linked. */
export function createDrillReporter(deps: { ctx: Pick<FeatureContext, 'db' | 'clock' | 'ids'>; wake: () => void }): { onDrillReceipt(receipt: DrillReceiptEvent): void } {
  return {
    onDrillReceipt(receipt) {
      const { ctx } = deps;
      if (!receipt.releaseId) return;
      const source = releaseSource(ctx, receipt.releaseId);
      const link = source ? findLink(ctx, receipt.projectId) : undefined;
      if (!source || !link || (source.repository_id !== null && source.repository_id !== link.repository_id) || problemOf(ctx, link)) return;
      const { projectId: _p, releaseId, ...rest } = receipt;
      const model: RestoreDrillCheckModel = { kind: 'restore-drill', state: receipt.outcome === 'passed' ? 'success' : 'failure', releaseId, receipt: rest };
      createCheck(ctx, { projectId: receipt.projectId, fullName: link.full_name, installationId: link.installation_id, sha: source.sha, name: 'svc/restore-drill', releaseId, model });
      deps.wake();
    },
  };
}
