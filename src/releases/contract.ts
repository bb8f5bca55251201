// HTTP contract of releases: upload, history, rollback, logs and storage usage. Shared by the
// server, the CLI (`svc deploy`, `svc releases`, `svc rollback`, `svc logs`) and the console;
// imports only zod.
import { z } from 'zod';

export const releaseRoutes = {
  /** POST: upload an artifact (raw gzip body) and run the release transaction. GET: history. */
  releases: '/api/projects/:id/releases',
  /** A pull request preview's upload: the same body and headers, released into the preview's own project. */
  previewReleases: '/api/projects/:id/previews/:number/releases',
  release: '/api/projects/:id/releases/:releaseId',
  /** GET: the release's steps as they happen (NDJSON), ending with its final row. */
  events: '/api/projects/:id/releases/:releaseId/events',
  /** POST `{ releaseId, restoreData?, confirm? }`. */
  rollback: '/api/projects/:id/rollback',
  /** GET `?since&limit&stream&releaseId&follow`. */
  logs: '/api/projects/:id/logs',
  storage: '/api/projects/:id/storage',
} as const;

/** Content-Type of an upload body: the artifact bytes exactly as packed. */
export const UPLOAD_MEDIA_TYPE = 'application/vnd.svc.deploy+gzip';
/** Header carrying the lowercase hex SHA-256 of the upload body (the artifact digest). */
export const DIGEST_HEADER = 'x-svc-artifact-digest';
/** Header carrying the idempotency key; the same key returns the same release, never a second one. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Optional headers of CI uploads: the commit the artifact was built from and its repository id. */
export const COMMIT_SHA_HEADER = 'x-svc-commit-sha';
export const REPOSITORY_ID_HEADER = 'x-svc-repository-id';
/** A full commit SHA (SHA-1 or SHA-256 repositories), lowercase hex. */
export const COMMIT_SHA_PATTERN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Idempotency keys: 8–200 printable ASCII characters without spaces. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{8,200}$/;
/** Content-Type of `GET …/logs?follow=true` unless the client accepts `text/event-stream`. */
export const LOG_STREAM_MEDIA_TYPE = 'application/x-ndjson';

export const releaseStatusValues = ['candidate', 'active', 'inactive', 'failed'] as const;
export type ReleaseStatus = (typeof releaseStatusValues)[number];

/** Steps of the release transaction (docs/releases.md, steps 4–10); `step` of a candidate or of a failure. */
export const releaseStepValues = ['verify', 'extract', 'stop-active', 'snapshot', 'migrate', 'start', 'health', 'activate', 'recovery'] as const;
export type ReleaseStep = (typeof releaseStepValues)[number];

const isoTime = z.string().describe('ISO 8601 timestamp');

/** Why a release failed: the step, a stable SVC_* code and a message, the code's hint and the output tail. */
export const releaseFailureSchema = z.object({
  step: z.enum(releaseStepValues),
  code: z.string().describe('stable SVC_* error code, e.g. SVC_HEALTH_CHECK_FAILED'),
  message: z.string(),
  hint: z.string().optional().describe("what to do next: the code's hint from the error registry (docs/errors.md)"),
  outputTail: z
    .array(z.string())
    .optional()
    .describe("the release's last output lines before it failed (app stdout/stderr and platform lines; at most 20 lines / 4 KiB, escapes removed)"),
});
export type ReleaseFailure = z.infer<typeof releaseFailureSchema>;

export const releaseSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  status: z.enum(releaseStatusValues),
  /** The step a candidate is at (null once active/inactive/failed). */
  step: z.enum(releaseStepValues).nullable(),
  digest: z.string().describe('lowercase hex SHA-256 of the artifact (gzip bytes)'),
  createdAt: isoTime,
  activatedAt: isoTime.nullable().describe('last time this release became active'),
  finishedAt: isoTime.nullable().describe('when the release transaction ended (active or failed)'),
  failure: releaseFailureSchema.nullable(),
  /** The release that was active when this one was last activated (its rollback target). */
  predecessorId: z.string().nullable(),
  /** Whether the release files are still on disk (false after `svc releases delete`). */
  artifactRetained: z.boolean(),
  storage: z.object({
    artifactBytes: z.number().int().describe('gzip bytes as uploaded'),
    bundleBytes: z.number().int().describe('uncompressed bytes of the release files'),
    fileCount: z.number().int(),
    snapshotBytes: z.number().int().nullable().describe('exact size of the pre-deploy snapshot (null: none kept)'),
  }),
  config: z.object({ entry: z.string(), healthPath: z.string(), healthTimeoutMs: z.number().int(), databasePath: z.string() }),
  createdBy: z.object({ type: z.string(), id: z.string(), name: z.string().nullable() }),
});
export type Release = z.infer<typeof releaseSchema>;

/** Upload response: 201 when created by this request, 200 when the idempotency key replayed it. */
export const uploadResponseSchema = z.object({
  release: releaseSchema,
  created: z.boolean().describe('false when an earlier upload with the same idempotency key created it'),
  url: z.string().optional().describe("the project's default app URL (the Action's `url` output)"),
});
export type UploadResponse = z.infer<typeof uploadResponseSchema>;

export const uploadQuerySchema = z.object({
  wait: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe('true (default): respond when the transaction ended (active or failed); false: respond 202 once the candidate exists'),
});

export const releaseParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug'), releaseId: z.string().min(1).max(100) });

/** Storage of one project counted against its quota (docs/releases.md "Limits"). */
export const storageUsageSchema = z.object({
  bundleBytes: z.number().int().describe('uncompressed files of every retained release'),
  databaseBytes: z.number().int().describe('database + -wal + -shm'),
  snapshotBytes: z.number().int().describe('recorded sizes of kept snapshots'),
  totalBytes: z.number().int(),
  retainedArtifacts: z.number().int(),
});
export const storageLimitsSchema = z.object({
  maxRetainedArtifacts: z.number().int(),
  maxStorageBytes: z.number().int(),
});
export const storageResponseSchema = z.object({ usage: storageUsageSchema, limits: storageLimitsSchema });

export const releaseListResponseSchema = z.object({
  releases: z.array(releaseSchema).describe('newest first'),
  activeReleaseId: z.string().nullable(),
  storage: storageResponseSchema,
});
export type ReleaseListResponse = z.infer<typeof releaseListResponseSchema>;
export const releaseResponseSchema = z.object({ release: releaseSchema });

/** Content-Type of `GET …/releases/:releaseId/events`: one JSON object per line (blank lines are keep-alives). */
export const RELEASE_EVENTS_MEDIA_TYPE = 'application/x-ndjson';
/** A step was entered (or finished, with `details` such as `{ applied, done: true }`). */
export const releaseStepEventSchema = z.object({
  type: z.literal('step'),
  step: z.enum(releaseStepValues),
  at: isoTime.describe('when the transaction recorded it'),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ReleaseStepEvent = z.infer<typeof releaseStepEventSchema>;
/** How a rollback to the followed release ended (its row alone cannot say why it stayed inactive). */
export const rollbackOutcomeSchema = z.object({
  outcome: z.enum(['complete', 'failed']),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('when failed: the stable SVC_* code and message'),
});
export type RollbackOutcome = z.infer<typeof rollbackOutcomeSchema>;
/**
 * The last line of the stream: the release is no longer a candidate (active or failed), or the
 * rollback to it ended (then `rollback` says how).
 */
export const releaseEventSchema = z.discriminatedUnion('type', [
  releaseStepEventSchema,
  z.object({ type: z.literal('end'), at: isoTime, release: releaseSchema, rollback: rollbackOutcomeSchema.optional() }),
]);
export type ReleaseEvent = z.infer<typeof releaseEventSchema>;

export const rollbackBodySchema = z.object({
  releaseId: z.string().min(1).max(100),
  restoreData: z.boolean().default(false).describe('also restore the database from the pre-deploy snapshot (newer writes are lost)'),
  confirm: z.string().max(300).optional().describe('with restoreData: exactly "restore <project-slug>"'),
});
export const rollbackQuerySchema = z.object({
  wait: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .describe("true (default): respond when the rollback ended; false: respond 202 once it is validated and started, then follow the target's events"),
});
export const rollbackResponseSchema = z.object({
  release: releaseSchema.describe('the release that is now active (in a 202: the target as it was when the rollback started)'),
  previousReleaseId: z.string().nullable(),
  restoredData: z.boolean().describe('the database was restored (in a 202: will be restored)'),
  running: z.boolean().optional().describe('true in a 202: the rollback continues; GET …/releases/:releaseId/events of the target says how it ends'),
});
export type RollbackResponse = z.infer<typeof rollbackResponseSchema>;

export const logStreamValues = ['stdout', 'stderr', 'system'] as const;
export const logEntryWireSchema = z.object({
  time: isoTime,
  stream: z.enum(logStreamValues),
  releaseId: z.string(),
  line: z.string(),
});
export type LogEntryWire = z.infer<typeof logEntryWireSchema>;
export const logsQuerySchema = z.object({
  since: z.string().max(40).optional().describe('ISO 8601 time or milliseconds since the epoch'),
  limit: z.coerce.number().int().min(1).max(10_000).default(200),
  stream: z.enum(logStreamValues).optional(),
  releaseId: z.string().min(1).max(100).optional(),
  follow: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1')
    .describe('stream: the backlog, then new entries as NDJSON lines (or SSE `data:` events with Accept: text/event-stream)'),
});
export const logsResponseSchema = z.object({ entries: z.array(logEntryWireSchema).describe('oldest first') });

/** The exact phrase that confirms a data-restoring rollback. */
export function restoreConfirmation(projectSlug: string): string {
  return `restore ${projectSlug}`;
}

// Release cleanup (`svc releases delete`).
export * from './delete-release-contract.js';

// App isolation mode (`GET /api/isolation`, `/readyz`, `svc doctor`, the console banner).
export * from './isolation-contract.js';

// What a data-restoring rollback loses, shown before the phrase is asked for (`svc rollback --restore-data`, the console's dialog).
export * from './restore-preview.js';
