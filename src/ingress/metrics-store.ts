// Durable request metrics: minute buckets (kept 48 h) and hour buckets (kept 35 days), both
// written from the recorder's in-memory deltas in one transaction per flush.
import type { Statement } from 'better-sqlite3';
import type { ControlDb } from '../core/control-db.js';
import type { Migration } from '../core/db-migrations.js';
import { addHistogram, decodeHistogram, encodeHistogram } from './latency-histogram.js';
import { aggregateSeries, windowRange, type MetricsBucket, type MetricsReport, type MetricsWindow } from './metrics-series.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** How long each resolution is kept. */
export const metricsRetention = { minuteMs: 48 * HOUR, hourMs: 35 * 24 * HOUR } as const;

/** Counts of one project release in one minute since the last flush. */
export interface MetricsDelta extends MetricsBucket {
  projectId: string;
  /** '' when the request had no release (503 no active release). */
  releaseId: string;
}

const columns = `project_id TEXT NOT NULL, release_id TEXT NOT NULL, bucket INTEGER NOT NULL,
  requests INTEGER NOT NULL, errors INTEGER NOT NULL, client_errors INTEGER NOT NULL, aborted INTEGER NOT NULL,
  bytes INTEGER NOT NULL, latency_sum_ms REAL NOT NULL, histogram BLOB NOT NULL,
  PRIMARY KEY (project_id, bucket, release_id)`;

/** Control-database tables of the ingress (no foreign key: a flush must never fail because a project was just deleted). */
export const ingressMigrations: readonly Migration[] = [
  {
    scope: 'ingress',
    version: 1,
    name: 'request metrics',
    up(db) {
      db.exec(`
        CREATE TABLE ingress_metrics_minute (${columns}) STRICT, WITHOUT ROWID;
        CREATE TABLE ingress_metrics_hour (${columns}) STRICT, WITHOUT ROWID;`);
    },
  },
  {
    scope: 'ingress',
    version: 2,
    name: "svc's own answers counted apart from the app's errors",
    up(db) {
      db.exec(`
        ALTER TABLE ingress_metrics_minute ADD COLUMN platform INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE ingress_metrics_hour ADD COLUMN platform INTEGER NOT NULL DEFAULT 0;`);
    },
  },
];

interface Row {
  bucket: number;
  requests: number;
  errors: number;
  platform: number;
  client_errors: number;
  aborted: number;
  bytes: number;
  latency_sum_ms: number;
  histogram: Buffer;
}

function toBucket(row: Row): MetricsBucket {
  return {
    bucket: row.bucket,
    requests: row.requests,
    errors: row.errors,
    platform: row.platform,
    clientErrors: row.client_errors,
    aborted: row.aborted,
    bytes: row.bytes,
    latencySumMs: row.latency_sum_ms,
    histogram: decodeHistogram(row.histogram),
  };
}

export interface MetricsStore {
  /** Add deltas to the minute and hour rows in one transaction. */
  write(deltas: readonly MetricsDelta[]): void;
  /** Delete rows older than the retention of their resolution. */
  prune(now: number): void;
  /** Series and totals of a project (optionally one release) for a window ending now. */
  query(projectId: string, window: MetricsWindow, now: number, options?: { releaseId?: string }): MetricsReport;
  /** Remove every metric row of a project (project deletion). */
  deleteProject(projectId: string): void;
}

/** The SQLite-backed metrics store on the control database (tables from ingressMigrations). */
export function createMetricsStore(db: ControlDb): MetricsStore {
  const tables = { minute: 'ingress_metrics_minute', hour: 'ingress_metrics_hour' } as const;
  const statements = Object.fromEntries(
    Object.entries(tables).map(([resolution, table]) => [
      resolution,
      {
        get: db.prepare(`SELECT * FROM ${table} WHERE project_id = ? AND bucket = ? AND release_id = ?`),
        put: db.prepare(`INSERT OR REPLACE INTO ${table} (project_id, release_id, bucket, requests, errors, platform, client_errors, aborted, bytes, latency_sum_ms, histogram)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
        range: db.prepare(`SELECT * FROM ${table} WHERE project_id = ? AND bucket >= ? AND bucket < ?`),
        rangeRelease: db.prepare(`SELECT * FROM ${table} WHERE project_id = ? AND bucket >= ? AND bucket < ? AND release_id = ?`),
        prune: db.prepare(`DELETE FROM ${table} WHERE bucket < ?`),
        remove: db.prepare(`DELETE FROM ${table} WHERE project_id = ?`),
      },
    ]),
  ) as Record<keyof typeof tables, Record<'get' | 'put' | 'range' | 'rangeRelease' | 'prune' | 'remove', Statement<unknown[]>>>;

  const add = (resolution: keyof typeof tables, d: MetricsDelta, bucket: number) => {
    const s = statements[resolution];
    const existing = s.get.get(d.projectId, bucket, d.releaseId) as Row | undefined;
    const sum = existing
      ? toBucket(existing)
      : { bucket, requests: 0, errors: 0, platform: 0, clientErrors: 0, aborted: 0, bytes: 0, latencySumMs: 0, histogram: decodeHistogram(null) };
    addHistogram(sum.histogram, d.histogram);
    s.put.run(
      d.projectId,
      d.releaseId,
      bucket,
      sum.requests + d.requests,
      sum.errors + d.errors,
      sum.platform + d.platform,
      sum.clientErrors + d.clientErrors,
      sum.aborted + d.aborted,
      sum.bytes + d.bytes,
      sum.latencySumMs + d.latencySumMs,
      encodeHistogram(sum.histogram),
    );
  };

  const write = db.transaction((deltas: readonly MetricsDelta[]) => {
    for (const d of deltas) {
      add('minute', d, Math.floor(d.bucket / MINUTE) * MINUTE);
      add('hour', d, Math.floor(d.bucket / HOUR) * HOUR);
    }
  });

  return {
    write(deltas) {
      if (deltas.length > 0) write.immediate(deltas);
    },
    prune(now) {
      db.transaction(() => {
        statements.minute.prune.run(now - metricsRetention.minuteMs);
        statements.hour.prune.run(now - metricsRetention.hourMs);
      }).immediate();
    },
    query(projectId, window, now, options = {}) {
      const { from, to, resolution } = windowRange(window, now);
      const s = statements[resolution];
      const rows = (options.releaseId === undefined ? s.range.all(projectId, from, to) : s.rangeRelease.all(projectId, from, to, options.releaseId)) as Row[];
      return aggregateSeries(window, now, rows.map(toBucket));
    },
    deleteProject(projectId) {
      db.transaction(() => {
        statements.minute.remove.run(projectId);
        statements.hour.remove.run(projectId);
      }).immediate();
    },
  };
}
