// Durable canary runs and their per-stage reports in the control database (one SQLite statement or
// transaction per write, so a crash leaves either the old or the new report).
import type { Migration } from '../core/db-migrations.js';
import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import type { CanaryRunReport, CanaryRunState } from './contract.js';
import type { CanaryPolicy, StageMetrics } from './stage-policy.js';

export const canaryMigrations: readonly Migration[] = [
  {
    scope: 'canary',
    version: 1,
    name: 'canary runs and stage reports',
    up(db) {
      db.exec(`
        CREATE TABLE canary_runs (
          id TEXT PRIMARY KEY, project_id TEXT NOT NULL, release_id TEXT NOT NULL, baseline_release_id TEXT,
          state TEXT NOT NULL, policy TEXT NOT NULL, failure_code TEXT, failure_message TEXT,
          started_at INTEGER NOT NULL, finished_at INTEGER
        ) STRICT;
        CREATE INDEX canary_runs_project ON canary_runs (project_id, started_at);
        CREATE TABLE canary_stages (
          run_id TEXT NOT NULL REFERENCES canary_runs (id) ON DELETE CASCADE, stage_index INTEGER NOT NULL,
          traffic_percent INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT,
          samples INTEGER NOT NULL, error_rate REAL NOT NULL, p95_ms REAL NOT NULL,
          started_at INTEGER NOT NULL, ended_at INTEGER,
          PRIMARY KEY (run_id, stage_index)
        ) STRICT;`);
    },
  },
];

interface RunRow {
  id: string;
  project_id: string;
  release_id: string;
  baseline_release_id: string | null;
  state: CanaryRunState;
  policy: string;
  failure_code: string | null;
  failure_message: string | null;
  started_at: number;
  finished_at: number | null;
}

interface StageRow {
  run_id: string;
  stage_index: number;
  traffic_percent: number;
  state: 'running' | 'passed' | 'failed' | 'interrupted';
  reason: string | null;
  samples: number;
  error_rate: number;
  p95_ms: number;
  started_at: number;
  ended_at: number | null;
}

/** The durable side of canary runs. */
export class CanaryStore {
  constructor(private readonly ctx: FeatureContext) {}

  /** Record a new run (state `running`, or `rejected` with its failure). */
  createRun(run: {
    projectId: string;
    releaseId: string;
    baselineReleaseId: string | null;
    policy: CanaryPolicy;
    state?: 'running' | 'rejected';
    failure?: { code: string; message: string };
  }): string {
    const id = this.ctx.ids('can');
    const now = this.ctx.clock.now();
    const rejected = run.state === 'rejected';
    this.ctx.db
      .prepare(
        'INSERT INTO canary_runs (id, project_id, release_id, baseline_release_id, state, policy, failure_code, failure_message, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        run.projectId,
        run.releaseId,
        run.baselineReleaseId,
        rejected ? 'rejected' : 'running',
        JSON.stringify(run.policy),
        run.failure?.code ?? null,
        run.failure?.message.slice(0, 1000) ?? null,
        now,
        rejected ? now : null,
      );
    return id;
  }

  /** A stage began (its row is `running` with empty metrics). */
  beginStage(runId: string, index: number, trafficPercent: number): void {
    this.ctx.db
      .prepare(
        "INSERT OR REPLACE INTO canary_stages (run_id, stage_index, traffic_percent, state, reason, samples, error_rate, p95_ms, started_at, ended_at) VALUES (?, ?, ?, 'running', NULL, 0, 0, 0, ?, NULL)",
      )
      .run(runId, index, trafficPercent, this.ctx.clock.now());
  }

  /** Latest metrics of a stage (and its end, when `state` is not `running`). */
  updateStage(runId: string, index: number, state: StageRow['state'], reason: string | null, metrics: StageMetrics): void {
    const ended = state === 'running' ? null : this.ctx.clock.now();
    this.ctx.db
      .prepare('UPDATE canary_stages SET state = ?, reason = ?, samples = ?, error_rate = ?, p95_ms = ?, ended_at = ? WHERE run_id = ? AND stage_index = ?')
      .run(state, reason, metrics.samples, metrics.errorRate, metrics.p95Ms, ended, runId, index);
  }

  /** End a run (promoted or failed) unless it already ended; returns whether this call ended it. */
  finishRun(runId: string, state: 'promoted' | 'failed' | 'rejected', failure: { code: string; message: string } | null): boolean {
    const ctx = this.ctx;
    return ctx.db
      .transaction(() => {
        const now = ctx.clock.now();
        const changed = ctx.db
          .prepare("UPDATE canary_runs SET state = ?, failure_code = ?, failure_message = ?, finished_at = ? WHERE id = ? AND state = 'running'")
          .run(state, failure?.code ?? null, failure?.message.slice(0, 1000) ?? null, now, runId).changes;
        if (changed > 0 && state === 'failed')
          ctx.db
            .prepare("UPDATE canary_stages SET state = 'failed', reason = COALESCE(reason, ?), ended_at = ? WHERE run_id = ? AND state = 'running'")
            .run(failure?.code ?? null, now, runId);
        return changed > 0;
      })
      .immediate();
  }

  /** Control-plane start: every run still `running` belonged to a dead process. Returns how many. */
  markInterrupted(message: string): number {
    const ctx = this.ctx;
    return ctx.db
      .transaction(() => {
        const now = ctx.clock.now();
        ctx.db.prepare("UPDATE canary_stages SET state = 'interrupted', ended_at = ? WHERE state = 'running'").run(now);
        return ctx.db
          .prepare(
            "UPDATE canary_runs SET state = 'interrupted', failure_code = 'SVC_CANARY_INTERRUPTED', failure_message = ?, finished_at = ? WHERE state = 'running'",
          )
          .run(message, now).changes;
      })
      .immediate();
  }

  /** Runs of a project, newest first, with their stages. */
  report(projectId: string, limit = 20): CanaryRunReport[] {
    const runs = this.ctx.db
      .prepare('SELECT * FROM canary_runs WHERE project_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?')
      .all(projectId, limit) as RunRow[];
    const stagesOf = this.ctx.db.prepare('SELECT * FROM canary_stages WHERE run_id = ? ORDER BY stage_index');
    return runs.map((run) => ({
      id: run.id,
      releaseId: run.release_id,
      baselineReleaseId: run.baseline_release_id,
      state: run.state,
      policy: JSON.parse(run.policy) as CanaryPolicy,
      failure: run.failure_code ? { code: run.failure_code, message: run.failure_message ?? '' } : null,
      startedAt: isoTime(run.started_at),
      finishedAt: run.finished_at === null ? null : isoTime(run.finished_at),
      stages: (stagesOf.all(run.id) as StageRow[]).map((s) => ({
        index: s.stage_index,
        trafficPercent: s.traffic_percent,
        state: s.state,
        reason: s.reason,
        samples: s.samples,
        errorRate: s.error_rate,
        p95Ms: s.p95_ms,
        startedAt: isoTime(s.started_at),
        endedAt: s.ended_at === null ? null : isoTime(s.ended_at),
      })),
    }));
  }
}
