// HTTP contract between the control plane and runner nodes (docs/nodes.md),
// plus the operator routes for enrollment, placement and desired generations (zod only).
// Node routes authenticate with `Authorization: Bearer <node credential>`; enrollment with the one-time
// registration token. Neither is ever an account, CLI, bridge or operation credential.
import { z } from 'zod';

/** Node, project, operation and release identifiers on the wire (same syntax as the provider bridge). */
export const nodeIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
const wireId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/);
const counter = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const regionSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);
/** Placement labels: bounded key=value map. */
export const labelsSchema = z
  .record(z.string().regex(/^[a-z0-9][a-z0-9._/-]{0,62}$/), z.string().regex(/^[A-Za-z0-9._-]{0,63}$/))
  .refine((labels) => Object.keys(labels).length <= 32, 'at most 32 labels');

/** A node credential or registration token as sent in a bearer header (opaque, 32–512 characters). */
export const nodeSecretSchema = z.string().min(32).max(512);

// ---- Operator routes (platform-admin session with CSRF, or an API token of the platform admin) ----

/** `POST /api/admin/nodes/registration-tokens` request. */
export const createRegistrationTokenSchema = z.strictObject({
  /** Minutes until the unused token expires (default 60, at most 7 days). */
  expiresInMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
});
/** `POST /api/admin/nodes/registration-tokens` response: the token is shown once and stored only as a hash. */
export const registrationTokenSchema = z.object({ token: nodeSecretSchema, expiresAt: z.string() });

/** One node as operators see it (`GET /api/admin/nodes`). */
export const nodeViewSchema = z.object({
  id: nodeIdSchema,
  region: regionSchema,
  capacity: z.number().int(),
  concurrency: z.number().int(),
  labels: labelsSchema,
  /** Projects currently placed on the node. */
  placed: z.number().int(),
  status: z.enum(['ready', 'draining', 'offline']),
  enrolledAt: z.string(),
  lastSeenAt: z.string().nullable(),
});
/** `GET /api/admin/nodes` response. */
export const nodeListSchema = z.object({ nodes: z.array(nodeViewSchema) });

/** `PUT /api/projects/:id/placement` request: constraints for choosing a node (project admin). */
export const placementRequestSchema = z.strictObject({
  region: regionSchema.optional(),
  /** Every label given here must be present with the same value on the node. */
  labels: labelsSchema.default({}),
});
/** `PUT|GET /api/projects/:id/placement` response. */
export const placementSchema = z.object({
  projectId: wireId,
  nodeId: nodeIdSchema,
  region: regionSchema,
  placedAt: z.string(),
});

/** The exact three-field desired payload (generation, state, release identifier). */
export const desiredPayloadSchema = z.strictObject({
  generation: counter.min(1),
  state: z.enum(['running', 'stopped']),
  releaseId: wireId.nullable(),
});

/** `POST /api/projects/:id/generations` request: converge the placed project to a release or to stopped. */
export const generationRequestSchema = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('running'), releaseId: wireId }),
  z.strictObject({ state: z.literal('stopped') }),
]);

/** One provider operation as operators see it. */
export const operationViewSchema = z.object({
  id: wireId,
  generation: counter,
  fence: counter,
  status: z.enum(['pending', 'leased', 'observed', 'failed', 'superseded']),
  attempts: z.number().int(),
  /** Stable `SVC_*` code of a failure (never provider details). */
  errorCode: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

/** `GET /api/projects/:id/generations` (and the `POST` response). */
export const generationStatusSchema = z.object({
  projectId: wireId,
  nodeId: nodeIdSchema.nullable(),
  desired: desiredPayloadSchema.nullable(),
  /** The last generation the node reported as observed (provider kind, generation, release, state only). */
  observed: z
    .object({ kind: z.string(), generation: counter, releaseId: wireId.nullable(), state: z.enum(['running', 'stopped']), observedAt: z.string() })
    .nullable(),
  operations: z.array(operationViewSchema),
});

// ---- Node routes ----

/** `POST /api/nodes/enroll` request (bearer: the registration token, accepted once). */
export const enrollRequestSchema = z.strictObject({
  nodeId: nodeIdSchema,
  region: regionSchema,
  capacity: z.number().int().min(1).max(100_000),
  concurrency: z.number().int().min(1).max(64),
  labels: labelsSchema,
});
/** `POST /api/nodes/enroll` response: the node credential, shown once and stored only as a hash. */
export const enrollResponseSchema = z.object({ nodeId: nodeIdSchema, credential: nodeSecretSchema });

/**
 * Where the active app of a project listens, as the node advertises it (`SVC_RUNNER_ADVERTISE_HOST`, else
 * the app's own loopback address): the control plane's ingress proxies the project's hosts there.
 */
export const nodeUpstreamSchema = z.strictObject({
  host: z.union([z.ipv4(), z.ipv6(), z.string().regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/)]),
  port: z.number().int().min(1).max(65535),
});

/** What a node runs for one project: the generation its provider converged to, and where the app listens. */
export const nodeProjectReportSchema = z.strictObject({
  projectId: wireId,
  generation: counter,
  state: z.enum(['running', 'stopped']),
  releaseId: wireId.nullable(),
  /** Null when nothing listens (stopped, or the app is down right now). */
  upstream: nodeUpstreamSchema.nullable(),
  /** A canary candidate staged beside this (baseline) release: the generation that staged it and where it listens. */
  canary: z.strictObject({ generation: counter.min(1), releaseId: wireId, upstream: nodeUpstreamSchema.nullable() }).optional(),
});

/** `POST /api/nodes/heartbeat` request: liveness plus what may change without re-enrolling. */
export const heartbeatRequestSchema = z.strictObject({
  draining: z.boolean(),
  capacity: z.number().int().min(1).max(100_000),
  labels: labelsSchema,
  /** Provider kind of the reports below. */
  provider: z.string().min(1).max(64).optional(),
  /**
   * Every project the node's provider holds, as it runs now (omitted by a node that cannot tell).
   * Routes follow it; an open operation whose exact generation already runs is observed from it.
   */
  projects: z.array(nodeProjectReportSchema).max(100_000).optional(),
});
/** `POST /api/nodes/heartbeat` response. */
export const heartbeatResponseSchema = z.object({
  /** A node not seen for this long is offline; the agent heartbeats at a third of it. */
  nodeLeaseMs: z.number().int(),
  serverTime: z.string(),
});

/**
 * A rollback to an older release (running operations only): the node accepts a database holding newer
 * migrations than the target's, and with `restoreData` (a confirmed `svc rollback --restore-data`) puts
 * back the snapshot it took before deploying `fromReleaseId`, the release active when it was asked.
 */
export const nodeRollbackSchema = z.strictObject({ restoreData: z.boolean(), fromReleaseId: wireId.nullable() });

/** An operation handed to a node: canonical `reconcile` only (the agent validates it again). */
export const nodeOperationSchema = z.strictObject({
  kind: z.literal('reconcile'),
  id: wireId,
  projectId: wireId,
  fence: counter,
  desired: desiredPayloadSchema,
  /** Lowercase hex SHA-256 of the release artifact; present exactly for running. */
  artifactSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** Only on rollbacks (agents that predate it refuse such operations with SVC_VALIDATION). */
  rollback: nodeRollbackSchema.optional(),
  /** Only on canaries: stage the release beside the running baseline without switching (never with a rollback). */
  canary: z.literal(true).optional(),
});

/** `POST /api/nodes/operations/lease` response (`204` when there is nothing to do). */
export const leaseResponseSchema = z.object({
  operation: nodeOperationSchema,
  /** The lease ends here unless renewed; an expired lease lets the operation be handed out again with a higher fence. */
  leaseExpiresAt: z.string(),
  leaseMs: z.number().int(),
});

/**
 * `POST /api/nodes/operations/:operationId/renew` request: the lease's fence, so a holder whose lease
 * was lost and re-issued (possibly to this same node) is told so (`409 SVC_NODE_LEASE_LOST`).
 */
export const renewRequestSchema = z.strictObject({ fence: counter.optional() });
/** `POST /api/nodes/operations/:operationId/renew` response (`409 SVC_NODE_LEASE_LOST` once lost). */
export const renewResponseSchema = z.object({ leaseExpiresAt: z.string() });

/**
 * `GET /api/nodes/operations/:operationId/artifact`: the raw artifact bytes
 * (`application/vnd.svc.deploy+gzip`), only for a running operation leased by this node.
 */
export const artifactMediaType = 'application/vnd.svc.deploy+gzip';

/**
 * `POST /api/nodes/operations/:operationId/hold` request (current lease holder): the node is about to
 * stop the project's writer for a stop-first cutover. The answer comes once the ingress holds the
 * project's new requests (up to SVC_HOLD_REQUESTS_MS) and the ones in flight finished; the hold ends
 * when the node's next report routes the project (its observation, or a heartbeat after a failure).
 */
export const holdRequestSchema = z.strictObject({ fence: counter.optional() });
/** `POST .../hold` response. */
export const holdResponseSchema = z.object({ held: z.literal(true) });

/** `POST /api/nodes/operations/:operationId/observe` request: the fixed result shape only. */
export const observeRequestSchema = z.strictObject({
  /** Optional: the fence of the lease this work ran under; a fence other than the current one is stale. */
  fence: counter.optional(),
  result: z.strictObject({
    kind: z.string().min(1).max(64),
    generation: counter,
    releaseId: wireId.nullable(),
    state: z.enum(['running', 'stopped']),
  }),
  /** Where the observed release listens (running only); the project's ingress route moves there. Of a canary operation: where the candidate listens (nothing is routed). */
  upstream: nodeUpstreamSchema.nullable().optional(),
});
/** `POST .../observe` response; a stale observation gets `409 SVC_PROVIDER_STALE_FENCE` instead. */
export const observeResponseSchema = z.object({ accepted: z.literal(true) });

/** `POST /api/nodes/operations/:operationId/fail` request: a stable code only. */
export const failRequestSchema = z.strictObject({
  code: z.string().regex(/^SVC_[A-Z0-9_]{1,64}$/),
  /** Optional: the lease's fence (as for observe). */ fence: counter.optional(),
});

/** The persisted node credentials file (`SVC_RUNNER_CREDENTIALS`, mode 0600, written atomically). */
export const nodeCredentialsFileSchema = z.strictObject({
  version: z.literal(1),
  controlUrl: z.url(),
  nodeId: nodeIdSchema,
  credential: nodeSecretSchema,
  enrolledAt: z.string(),
});

export type NodeView = z.infer<typeof nodeViewSchema>;
export type Placement = z.infer<typeof placementSchema>;
export type GenerationStatus = z.infer<typeof generationStatusSchema>;
export type LeaseResponse = z.infer<typeof leaseResponseSchema>;
export type NodeCredentialsFile = z.infer<typeof nodeCredentialsFileSchema>;
export type NodeRollback = z.infer<typeof nodeRollbackSchema>;
export type NodeProjectReportWire = z.infer<typeof nodeProjectReportSchema>;
