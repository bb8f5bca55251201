import { describe, expect, it } from 'vitest';
import type { ReleaseJob } from '../../../runner/release-driver.js';
import { jobDescriptionSchema, parseJobResult } from '../../../runner/swarm/swarm-job-protocol.js';
import { fromTaskJob, toTaskJob } from '../../../runner/swarm/task-job-paths.js';

const host = { dataDir: '/srv/svc/projects/p1/data', releaseDir: '/srv/svc/releases/r1' };
const target = {
  databasePath: '/srv/svc/projects/p1/data/db/app.db',
  migrationsDir: '/srv/svc/releases/r1/migrations',
  allowUnsafeMigrations: true,
  operatorAllowsUnsafe: false,
};

describe('job paths between the driver and the task', () => {
  it('maps every job type to task paths: the database under /data, migrations relative to the release, no snapshot path', () => {
    const jobs: ReleaseJob[] = [
      { type: 'precheck', target },
      { type: 'migrate', target, now: 42 },
      { type: 'snapshot', databasePath: target.databasePath, snapshotPath: '/srv/svc/snapshots/s1.db' },
      { type: 'restore-snapshot', snapshotPath: '/srv/svc/snapshots/s1.db', databasePath: target.databasePath },
      { type: 'unapplied-migrations', migrationsDir: target.migrationsDir, databasePath: target.databasePath },
      { type: 'database-footprint', databasePath: target.databasePath },
    ];
    const taskTarget = { databasePath: '/data/db/app.db', migrationsDir: 'migrations', allowUnsafeMigrations: true, operatorAllowsUnsafe: false };
    expect(jobs.map((job) => toTaskJob(job, host))).toEqual([
      { type: 'precheck', target: taskTarget },
      { type: 'migrate', target: taskTarget, now: 42 },
      { type: 'snapshot', databasePath: '/data/db/app.db' },
      { type: 'restore-snapshot', databasePath: '/data/db/app.db' },
      { type: 'unapplied-migrations', migrationsDir: 'migrations', databasePath: '/data/db/app.db' },
      { type: 'database-footprint', databasePath: '/data/db/app.db' },
    ]);
  });

  it('refuses host paths outside the data directory or the release', () => {
    expect(() => toTaskJob({ type: 'database-footprint', databasePath: '/etc/passwd' }, host)).toThrow(/not inside/);
    expect(() => toTaskJob({ type: 'database-footprint', databasePath: host.dataDir }, host)).toThrow(/not inside/);
    expect(() => toTaskJob({ type: 'precheck', target: { ...target, migrationsDir: '/srv/svc/releases/r2/migrations' } }, host)).toThrow(/not inside/);
    expect(() => toTaskJob({ type: 'precheck', target }, { dataDir: host.dataDir })).toThrow(/not inside/);
  });

  it('maps task paths back into the task directories, the snapshot into /tmp', () => {
    const dirs = { dataDir: '/t/data', releaseDir: '/t/app/release', snapshotPath: '/t/tmp/s' };
    expect(fromTaskJob(toTaskJob({ type: 'migrate', target, now: 42 }, host), dirs)).toEqual({
      type: 'migrate',
      target: { databasePath: '/t/data/db/app.db', migrationsDir: '/t/app/release/migrations', allowUnsafeMigrations: true, operatorAllowsUnsafe: false },
      now: 42,
    });
    expect(fromTaskJob({ type: 'snapshot', databasePath: '/data/app.db' }, dirs)).toEqual({
      type: 'snapshot',
      databasePath: '/t/data/app.db',
      snapshotPath: '/t/tmp/s',
    });
    expect(fromTaskJob({ type: 'restore-snapshot', databasePath: '/data/app.db' }, dirs)).toEqual({
      type: 'restore-snapshot',
      databasePath: '/t/data/app.db',
      snapshotPath: '/t/tmp/s',
    });
  });
});

describe('job description and result on the wire', () => {
  const description = { job: { type: 'snapshot', databasePath: '/data/app.db' }, needsRelease: false, releaseId: 'rel_1' };

  it('accepts a description whose needsRelease fits the job type, and paths only below /data or inside the release', () => {
    expect(jobDescriptionSchema.parse(description)).toEqual(description);
    expect(jobDescriptionSchema.safeParse({ ...description, needsRelease: true }).success).toBe(false);
    expect(jobDescriptionSchema.safeParse({ ...description, job: { type: 'snapshot', databasePath: '/data/../etc/passwd' } }).success).toBe(false);
    expect(jobDescriptionSchema.safeParse({ ...description, job: { type: 'snapshot', databasePath: '/etc/app.db' } }).success).toBe(false);
    const unapplied = { job: { type: 'unapplied-migrations', migrationsDir: '../x', databasePath: '/data/app.db' }, needsRelease: true, releaseId: 'rel_1' };
    expect(jobDescriptionSchema.safeParse(unapplied).success).toBe(false);
    expect(jobDescriptionSchema.safeParse({ ...unapplied, job: { ...unapplied.job, migrationsDir: '/abs' } }).success).toBe(false);
    expect(jobDescriptionSchema.safeParse({ ...description, job: { ...description.job, snapshotPath: '/tmp/x' } }).success).toBe(false);
  });

  it('validates a result value against the job type', () => {
    expect(parseJobResult('migrate', { ok: true, value: ['0001_a.sql'] })).toEqual({ ok: true, value: ['0001_a.sql'] });
    expect(parseJobResult('restore-snapshot', { ok: true })).toEqual({ ok: true, value: null });
    expect(parseJobResult('precheck', { ok: false, code: 'SVC_MIGRATION_UNSAFE', message: 'x' })).toEqual({
      ok: false,
      code: 'SVC_MIGRATION_UNSAFE',
      message: 'x',
    });
    expect(() => parseJobResult('precheck', { ok: true, value: 1.5 })).toThrow();
    expect(() => parseJobResult('snapshot', { ok: true, value: { sizeBytes: 1, hadDatabase: true, path: '/x' } })).toThrow();
    expect(() => parseJobResult('migrate', { ok: true, value: ['a'], extra: 1 })).toThrow();
  });
});
