// Release and rollback outcomes and durations, and the bytes of accepted uploads, as a release
// observer (src/releases calls it at the end of every transaction and rollback, local or placed).
import type { Counter, Histogram } from 'prom-client';
import type { FeatureContext } from '../../core/feature-context.js';
import { getReleaseById, type ObservedRollback, type ReleaseObserver } from '../../releases/index.js';

/** Seconds: a quick code-only rollback up to a long migration. */
export const PIPELINE_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];

export interface ReleaseMetrics {
  releases: Counter<'project' | 'outcome'>;
  releaseSeconds: Histogram<'project' | 'outcome'>;
  rollbacks: Counter<'project' | 'outcome'>;
  rollbackSeconds: Histogram<'project' | 'outcome'>;
  uploadBytes: Counter<'project'>;
}

/** The outcome label of a rollback phase that ends one (null for `start`). Pure. */
export function rollbackOutcome(phase: ObservedRollback['phase']): 'success' | 'failure' | null {
  return phase === 'complete' ? 'success' : phase === 'fail' ? 'failure' : null;
}

/** An observer that counts into `metrics`; rollbacks are timed from their `start` (one per project at a time: the lock). */
export function releaseMetricsObserver(ctx: FeatureContext, metrics: ReleaseMetrics): ReleaseObserver {
  const rollbackStarted = new Map<string, number>();
  return {
    onCandidate(release) {
      const row = getReleaseById(ctx, release.id);
      if (row) metrics.uploadBytes.inc({ project: release.projectId }, row.gzip_bytes);
    },
    onOutcome(release) {
      const row = getReleaseById(ctx, release.id);
      if (!row) return;
      const outcome = row.status === 'failed' ? 'failure' : 'success';
      const labels = { project: release.projectId, outcome };
      metrics.releases.inc(labels);
      metrics.releaseSeconds.observe(labels, Math.max(0, (row.finished_at ?? ctx.clock.now()) - row.created_at) / 1000);
    },
    onRollback(event) {
      if (event.phase === 'start') {
        rollbackStarted.set(event.projectId, ctx.clock.now());
        return;
      }
      const outcome = rollbackOutcome(event.phase)!;
      const started = rollbackStarted.get(event.projectId);
      rollbackStarted.delete(event.projectId);
      const labels = { project: event.projectId, outcome };
      metrics.rollbacks.inc(labels);
      if (started !== undefined) metrics.rollbackSeconds.observe(labels, Math.max(0, ctx.clock.now() - started) / 1000);
    },
  };
}
