// A ReleaseJob's paths in the two places it exists: the driver's (host paths the pipeline computed)
// and the task's (the project volume at /data, the release extracted by the entrypoint). Pure.
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { SvcError } from '../../src/core/errors.js';
import type { ReleaseJob } from '../release-driver.js';
import { TASK_DATA_DIR, taskJobSchema, type TaskJob } from './swarm-job-protocol.js';

/** `path` relative to `dir` in posix form, or null when it lies outside (or is `dir` itself). */
function below(dir: string, path: string): string | null {
  const rel = relative(resolve(dir), resolve(path));
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

function outside(what: string, path: string, dir: string): SvcError {
  return new SvcError('SVC_CONTAINER_INVALID_SPEC', `The job's ${what} ${path} is not inside ${dir}`);
}

/** Where a job's host paths live: the project's data directory (the volume) and the staged release. */
export interface HostJobDirs {
  dataDir: string;
  /** The release whose migrations the job reads (precheck, migrate, unapplied-migrations). */
  releaseDir?: string;
}

/**
 * The driver's side: a pipeline job with host paths as the task sees it. The database must lie in the
 * project's data directory, the migrations in the release; a snapshot path stays with the driver
 * (the endpoint's job output or input).
 */
export function toTaskJob(job: ReleaseJob, dirs: HostJobDirs): TaskJob {
  const data = (path: string): string => {
    const rel = below(dirs.dataDir, path);
    if (rel === null) throw outside('database', path, dirs.dataDir);
    return `${TASK_DATA_DIR}/${rel}`;
  };
  const release = (path: string): string => {
    const rel = dirs.releaseDir === undefined ? null : below(dirs.releaseDir, path);
    if (rel === null) throw outside('migrations directory', path, dirs.releaseDir ?? 'the release');
    return rel;
  };
  const target = (t: Extract<ReleaseJob, { type: 'precheck' }>['target']) => ({
    databasePath: data(t.databasePath),
    migrationsDir: release(t.migrationsDir),
    allowUnsafeMigrations: t.allowUnsafeMigrations,
    operatorAllowsUnsafe: t.operatorAllowsUnsafe,
  });
  const mapped: TaskJob = (() => {
    switch (job.type) {
      case 'precheck':
        return { type: job.type, target: target(job.target) };
      case 'migrate':
        return { type: job.type, target: target(job.target), now: job.now };
      case 'snapshot':
      case 'restore-snapshot':
      case 'database-footprint':
        return { type: job.type, databasePath: data(job.databasePath) };
      case 'unapplied-migrations':
        return { type: job.type, migrationsDir: release(job.migrationsDir), databasePath: data(job.databasePath) };
    }
  })();
  return taskJobSchema.parse(mapped);
}

/** Where the task found things: the volume, the extracted release, the snapshot file in /tmp. */
export interface TaskJobDirs {
  dataDir: string;
  releaseDir: string;
  snapshotPath: string;
}

/** The task's side: a described job with the paths of this task, ready for runReleaseJob. */
export function fromTaskJob(job: TaskJob, dirs: TaskJobDirs): ReleaseJob {
  const data = (path: string): string => {
    const rel = posix.relative(TASK_DATA_DIR, path);
    if (rel === '' || rel.startsWith('..') || posix.isAbsolute(rel)) throw outside('database', path, TASK_DATA_DIR);
    return join(dirs.dataDir, ...rel.split('/'));
  };
  const release = (path: string): string => {
    const full = resolve(dirs.releaseDir, path);
    if (below(dirs.releaseDir, full) === null) throw outside('migrations directory', path, 'the release');
    return full;
  };
  switch (job.type) {
    case 'precheck':
    case 'migrate': {
      const target = { ...job.target, databasePath: data(job.target.databasePath), migrationsDir: release(job.target.migrationsDir) };
      return job.type === 'migrate' ? { type: 'migrate', target, now: job.now } : { type: 'precheck', target };
    }
    case 'snapshot':
      return { type: 'snapshot', databasePath: data(job.databasePath), snapshotPath: dirs.snapshotPath };
    case 'restore-snapshot':
      return { type: 'restore-snapshot', snapshotPath: dirs.snapshotPath, databasePath: data(job.databasePath) };
    case 'unapplied-migrations':
      return { type: 'unapplied-migrations', migrationsDir: release(job.migrationsDir), databasePath: data(job.databasePath) };
    case 'database-footprint':
      return { type: 'database-footprint', databasePath: data(job.databasePath) };
  }
}
