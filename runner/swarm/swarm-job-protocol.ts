// The wire protocol between a swarm task and the release endpoint: routes, the job description a
// job task fetches, and the result it reports. zod at both edges; shared by the endpoint and the
// entrypoint so the two cannot drift.
import { z } from 'zod';
import type { ReleaseJob, ReleaseJobResults } from '../release-driver.js';

export const RELEASE_ENDPOINT_PATHS = {
  artifact: (releaseId: string) => `/v1/releases/${encodeURIComponent(releaseId)}/artifact`,
  job: (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}`,
  jobInput: (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}/input`,
  jobOutput: (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}/output`,
  jobResult: (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}/result`,
} as const;

/** Response header with the lowercase hex SHA-256 of a served file. */
export const SHA256_HEADER = 'x-svc-sha256';

/** Release, job and project ids as the swarm names accept them. */
export const endpointIdPattern = /^[A-Za-z0-9_.-]{1,128}$/;

/** Where the project's volume is mounted in every task; database paths of a description lie below it. */
export const TASK_DATA_DIR = '/data';

const id = z.string().regex(endpointIdPattern);
/** An absolute path below /data without `..`. */
const dataPath = z
  .string()
  .max(4096)
  .refine((p) => p.startsWith(`${TASK_DATA_DIR}/`) && !p.split('/').includes('..') && !/[\0\n]/.test(p), 'must be a path below /data');
/** A path relative to the extracted release, without `..`. */
const releasePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !/[\0\n]/.test(p), 'must be a relative path inside the release');

const migrationTarget = z.strictObject({
  databasePath: dataPath,
  migrationsDir: releasePath,
  allowUnsafeMigrations: z.boolean(),
  operatorAllowsUnsafe: z.boolean(),
});

/**
 * A ReleaseJob as the task sees it: database paths below /data, the migrations directory relative to
 * the extracted release, and no snapshot path (a snapshot travels as the job's output or input).
 */
export const taskJobSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('precheck'), target: migrationTarget }),
  z.strictObject({ type: z.literal('migrate'), target: migrationTarget, now: z.number().int().nonnegative() }),
  z.strictObject({ type: z.literal('snapshot'), databasePath: dataPath }),
  z.strictObject({ type: z.literal('restore-snapshot'), databasePath: dataPath }),
  z.strictObject({ type: z.literal('unapplied-migrations'), migrationsDir: releasePath, databasePath: dataPath }),
  z.strictObject({ type: z.literal('database-footprint'), databasePath: dataPath }),
]);
export type TaskJob = z.infer<typeof taskJobSchema>;

/** Jobs that read the release's migrations: their task fetches and extracts the release first. */
export const JOBS_NEEDING_RELEASE: ReadonlySet<ReleaseJob['type']> = new Set(['precheck', 'migrate', 'unapplied-migrations']);

/** `GET /v1/jobs/<id>`: the job, whether it needs the release, and which release's artifact its credential may fetch. */
export const jobDescriptionSchema = z
  .strictObject({ job: taskJobSchema, needsRelease: z.boolean(), releaseId: id })
  .refine((d) => d.needsRelease === JOBS_NEEDING_RELEASE.has(d.job.type), 'needsRelease must match the job type');
export type JobDescription = z.infer<typeof jobDescriptionSchema>;

/** What a snapshot job reports (the driver knows where the endpoint wrote the bytes). */
export interface TaskSnapshotValue {
  sizeBytes: number;
  hadDatabase: boolean;
}

/** What each job reports over the wire. */
export type TaskJobValues = Omit<ReleaseJobResults, 'snapshot' | 'restore-snapshot'> & { snapshot: TaskSnapshotValue; 'restore-snapshot': null };

const count = z.number().int().nonnegative();
const valueSchemas: { [T in ReleaseJob['type']]: z.ZodType<TaskJobValues[T]> } = {
  precheck: count,
  migrate: z.array(z.string().max(512)).max(100_000),
  snapshot: z.strictObject({ sizeBytes: count, hadDatabase: z.boolean() }),
  'restore-snapshot': z.null(),
  'unapplied-migrations': count,
  'database-footprint': count,
};

const failureSchema = z.strictObject({ ok: z.literal(false), code: z.string().regex(/^SVC_[A-Z0-9_]{1,80}$/), message: z.string().max(4000) });
const resultSchema = z.union([z.strictObject({ ok: z.literal(true), value: z.unknown().optional() }), failureSchema]);

/** `PUT /v1/jobs/<id>/result`: a job's value, or the code and message of its failure. */
export type JobResult<T extends ReleaseJob['type'] = ReleaseJob['type']> = { ok: true; value: TaskJobValues[T] } | z.infer<typeof failureSchema>;

/** Validate a reported result against the job's type; throws a ZodError when it does not fit. */
export function parseJobResult<T extends ReleaseJob['type']>(type: T, body: unknown): JobResult<T> {
  const result = resultSchema.parse(body);
  if (!result.ok) return result;
  return { ok: true, value: valueSchemas[type].parse(result.value ?? null) as TaskJobValues[T] };
}
