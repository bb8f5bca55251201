// Recorder + store on a real SQLite control database in a temp dir with a manual clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations } from '../../src/core/db-migrations.js';
import { MetricsRecorder } from '../../src/ingress/metrics-recorder.js';
import { createMetricsStore, ingressMigrations, metricsRetention, type MetricsStore } from '../../src/ingress/metrics-store.js';
import type { RequestRecord } from '../../src/ingress/request-record.js';

const START = Date.parse('2026-03-01T12:00:10Z');
let dir: string;
let db: ControlDb;
let store: MetricsStore;
let clock: ReturnType<typeof manualClock>;
let recorder: MetricsRecorder;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-metrics-'));
  db = openControlDb(join(dir, 'control.db'));
  applyMigrations(db, ingressMigrations);
  store = createMetricsStore(db);
  clock = manualClock(START);
  recorder = new MetricsRecorder(store, clock);
});

afterEach(() => {
  recorder.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function rec(extra: Partial<RequestRecord> = {}): RequestRecord {
  return {
    projectId: 'p1',
    releaseId: 'r1',
    generation: 1,
    method: 'GET',
    status: 200,
    latencyMs: 10,
    bytes: 100,
    aborted: false,
    streamError: false,
    ...extra,
  };
}
const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('metrics recorder and store', () => {
  it('keeps counts in memory and writes one row per minute and release per flush', () => {
    for (let i = 0; i < 500; i++) recorder.record(rec());
    recorder.record(rec({ status: 503, releaseId: null, bytes: 40 }));
    recorder.record(rec({ status: 404 }));
    recorder.record(rec({ status: 200, aborted: true, bytes: 7 }));
    expect(count('ingress_metrics_minute')).toBe(0);
    recorder.flush();
    expect(count('ingress_metrics_minute')).toBe(2);
    expect(count('ingress_metrics_hour')).toBe(2);
    const totals = store.query('p1', '1h', clock.now()).totals;
    expect(totals).toMatchObject({ requests: 503, errors: 1, clientErrors: 1, aborted: 1, bytes: 500 * 100 + 40 + 100 + 7 });
    expect(totals.p50).toBeGreaterThan(8);
    expect(totals.p50).toBeLessThanOrEqual(11.4); // within the bin that holds 10 ms
    expect(store.query('p1', '1h', clock.now(), { releaseId: 'r1' }).totals.requests).toBe(502);
  });

  it('adds later flushes to the same minute and hour rows and starts new minutes', () => {
    recorder.record(rec());
    recorder.flush();
    recorder.record(rec({ latencyMs: 900 }));
    clock.advance(60_000);
    recorder.record(rec());
    recorder.flush();
    expect(count('ingress_metrics_minute')).toBe(2);
    expect(count('ingress_metrics_hour')).toBe(1);
    const day = store.query('p1', '24h', clock.now());
    expect(day.totals.requests).toBe(3);
    expect(day.totals.p95).toBeGreaterThan(700);
    const week = store.query('p1', '7d', clock.now());
    expect(week.totals.requests).toBe(3);
    expect(week.series.filter((p) => p.requests > 0)).toHaveLength(1);
  });

  it('prunes minute rows after 48 h and hour rows after the 30-day window', () => {
    recorder.record(rec());
    recorder.flush();
    clock.advance(metricsRetention.minuteMs + 60 * 60_000);
    recorder.record(rec());
    recorder.flush();
    expect(count('ingress_metrics_minute')).toBe(1);
    expect(count('ingress_metrics_hour')).toBe(2);
    expect(store.query('p1', '30d', clock.now()).totals.requests).toBe(2);
    clock.advance(metricsRetention.hourMs);
    recorder.record(rec());
    recorder.flush();
    expect(count('ingress_metrics_hour')).toBe(1);
  });

  it('keeps deltas for the next flush when the database refuses a write', () => {
    recorder.record(rec());
    db.exec('ALTER TABLE ingress_metrics_hour RENAME TO broken');
    recorder.flush();
    expect(count('ingress_metrics_minute')).toBe(0);
    db.exec('ALTER TABLE broken RENAME TO ingress_metrics_hour');
    recorder.flush();
    expect(store.query('p1', '1h', clock.now()).totals.requests).toBe(1);
  });

  it('deletes a project’s rows', () => {
    recorder.record(rec());
    recorder.record(rec({ projectId: 'p2' }));
    recorder.flush();
    store.deleteProject('p1');
    expect(store.query('p1', '1h', clock.now()).totals.requests).toBe(0);
    expect(store.query('p2', '1h', clock.now()).totals.requests).toBe(1);
  });
});
