import { describe, expect, it } from 'vitest';
import { applyConditionGrace } from '../../../src/ops/monitor/condition-grace.js';
import { isJobOverdue, JOB_INSPECTIONS_PER_PASS, rotateJobInspections, type JobRef } from '../../../src/ops/monitor/job-rotation.js';

const job = (key: string): JobRef => ({ key, kind: key.split(':')[0]!, projectId: key.split(':')[1] ?? null });
const keys = (jobs: readonly JobRef[]) => jobs.map((j) => j.key);

describe('rotateJobInspections (pure)', () => {
  const seven = ['backup-schedule:p1', 'alert-delivery', 'restore-drill:p2', 'backup-schedule:p2', 'audit-export', 'restore-drill:p1', 'restore-drill:p3'].map(
    job,
  );
  const sorted = [...seven.map((j) => j.key)].sort();

  it.each([
    // [cursor, expected keys, expected cursor]
    [null, sorted.slice(0, 5), sorted[4]],
    [sorted[4]!, [sorted[5], sorted[6], sorted[0], sorted[1], sorted[2]], sorted[2]],
    [sorted[6]!, sorted.slice(0, 5), sorted[4]],
    ['backup-schedule:p1x', ['backup-schedule:p2', 'restore-drill:p1', 'restore-drill:p2', 'restore-drill:p3', 'alert-delivery'], 'alert-delivery'], // a removed job's cursor continues after it
    ['zzz', sorted.slice(0, 5), sorted[4]], // past the end wraps
  ])('cursor %s → %j', (cursor, expected, next) => {
    const result = rotateJobInspections(seven, cursor);
    expect(keys(result.inspect)).toEqual(expected);
    expect(result.cursor).toBe(next);
  });

  it('inspects each job at most once per pass, five per pass, and every job within ceil(n/5) passes', () => {
    for (let n = 0; n <= 13; n++) {
      const jobs = Array.from({ length: n }, (_, i) => job(`j:${String(i).padStart(2, '0')}`));
      let cursor: string | null = null;
      const seen = new Set<string>();
      for (let pass = 0; pass < Math.ceil(n / JOB_INSPECTIONS_PER_PASS); pass++) {
        const r: { inspect: JobRef[]; cursor: string | null } = rotateJobInspections(jobs, cursor);
        expect(r.inspect.length).toBe(Math.min(5, n));
        expect(new Set(keys(r.inspect)).size).toBe(r.inspect.length);
        for (const k of keys(r.inspect)) seen.add(k);
        cursor = r.cursor;
      }
      expect(seen.size).toBe(n);
    }
  });

  it('duplicate keys count once; no jobs keeps the cursor', () => {
    expect(keys(rotateJobInspections([job('a:1'), job('a:1'), job('b:1')], null).inspect)).toEqual(['a:1', 'b:1']);
    expect(rotateJobInspections([], 'a:1')).toEqual({ inspect: [], cursor: 'a:1' });
  });
});

describe('isJobOverdue (pure)', () => {
  it.each([
    [null, 10_000, 1000, false],
    [9000, 10_000, 1000, false], // exactly at the grace
    [8999, 10_000, 1000, true],
    [20_000, 10_000, 1000, false], // not yet due
  ])('due %s, now %s, grace %s → %s', (due, now, grace, overdue) => {
    expect(isJobOverdue(due, now, grace)).toBe(overdue);
  });
});

describe('applyConditionGrace (pure)', () => {
  const c = (key: string, graceMs?: number) => ({
    key,
    kind: 'app.unhealthy',
    projectId: key.split(':')[1]!,
    details: {},
    ...(graceMs === undefined ? {} : { graceMs }),
  });
  const all = () => true;

  it('confirms ungraced conditions at once and graced ones only after the grace, keeping the first-seen time', () => {
    const first = applyConditionGrace([c('x:p1'), c('u:p1', 1000)], new Map(), 5000, all);
    expect(first.confirmed.map((x) => x.key)).toEqual(['x:p1']);
    expect(first.confirmed[0]).not.toHaveProperty('graceMs');
    expect([...first.since]).toEqual([['u:p1', 5000]]);
    expect(applyConditionGrace([c('u:p1', 1000)], first.since, 5999, all).confirmed).toEqual([]);
    const later = applyConditionGrace([c('u:p1', 1000)], first.since, 6000, all);
    expect(later.confirmed.map((x) => x.key)).toEqual(['u:p1']);
    expect(later.since.get('u:p1')).toBe(5000);
  });

  it('forgets a condition that cleared only when in scope (a flapping app starts its grace again)', () => {
    const since = new Map([
      ['u:p1', 1000],
      ['u:p2', 1000],
    ]);
    const next = applyConditionGrace([], since, 9000, (key) => key === 'u:p1');
    expect([...next.since]).toEqual([['u:p2', 1000]]);
    expect(applyConditionGrace([c('u:p1', 1000)], next.since, 9000, all).confirmed).toEqual([]);
  });
});
