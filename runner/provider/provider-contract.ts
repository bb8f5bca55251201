// The deployment provider contract (docs/provider-bridge.md): `kind` + `reconcile(request)`, the request fields,
// the fixed result shape, and the pure checks every consumer (agent, bridge, local provider) applies.
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import type { DecodedArtifact } from '../../src/artifacts/index.js';

/** Desired states of a provider generation. */
export type DesiredState = 'running' | 'stopped';

/** The artifact of a running generation: original compressed bytes, their SHA-256 and the decoded bundle. */
export interface ProviderArtifact {
  bytes: Buffer;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
  decoded: DecodedArtifact;
}

/** One reconcile request. Node and operation credentials are never part of it. */
export interface ReconcileRequest {
  operation: {
    projectId: string;
    id: string;
    /** Monotonic per project; operation id + fence is the idempotency key. */
    fence: number;
    /** 1 for the first delivery; retries of the same request count up (informational only). */
    attempt?: number;
  };
  desired: {
    generation: number;
    state: DesiredState;
    /** The release of a running generation; null when stopped. */
    releaseId: string | null;
  };
  /** Present exactly when `desired.state` is running. */
  artifact: ProviderArtifact | null;
  /** Abort: stop local subprocess or container work when possible. */
  signal: AbortSignal;
  /**
   * Present when the running generation rolls the project back to an older release: the node accepts
   * a database that already holds migrations newer than the target's, and with `restoreData` it puts
   * back the snapshot it took before deploying `fromReleaseId` (its active release) first.
   */
  rollback?: RollbackIntent | null;
  /**
   * Present (true) when the running generation stages its release as a canary: the candidate starts
   * beside the running baseline and takes part of the traffic while the pointer stays on the baseline.
   * Only providers with `supportsCanary` accept it (runReconcile refuses it for the others).
   */
  canary?: true;
  /** Optional effect (a runner node's agent): hold the project's requests at the ingress before its writer stops. */
  traffic?: TrafficHold;
}

/** What a rollback asks of the provider (validated with rollbackIntentSchema). */
export interface RollbackIntent {
  restoreData: boolean;
  /** The release the control plane saw active (the node refuses a restore when its own differs). */
  fromReleaseId: string | null;
}

/** The control plane's ingress as a provider may use it during a stop-first cutover. */
export interface TrafficHold {
  /** Resolves once new requests of the project are held and the ones in flight have finished. */
  hold(): Promise<void>;
}

/** What a provider runs for one project right now: the generation it converged to and where the app listens. */
export interface ProjectRunState {
  projectId: string;
  generation: number;
  state: DesiredState;
  releaseId: string | null;
  /** The app's listening address on the provider's host; null when nothing listens. */
  upstream: { host: string; port: number } | null;
  /** A canary candidate started beside this (baseline) release, present only while one is staged. */
  canary?: CanaryRunState;
}

/** A staged canary candidate: the generation that staged it, its release and where it listens (null while down). */
export interface CanaryRunState {
  generation: number;
  releaseId: string;
  upstream: { host: string; port: number } | null;
}

/** A deployment provider converges one project to a running release or to a stopped state. */
export interface DeploymentProvider {
  readonly kind: string;
  /** Resolves only once the requested state is externally usable; its return value is ignored. */
  reconcile(request: ReconcileRequest): Promise<unknown>;
  /** Optional: what runs now, per project (a node reports it so the control plane routes and converges from it). */
  running?(signal?: AbortSignal): Promise<ProjectRunState[]>;
  /**
   * Optional: the control plane now routes the project to `generation` (its observation was accepted),
   * so apps of earlier generations that kept serving during a blue-green switch may stop.
   */
  routed?(projectId: string, generation: number): Promise<void>;
  /** True when the provider understands the `canary` intent; any other provider has it refused, never ignored. */
  readonly supportsCanary?: boolean;
}

/** The only thing ever recorded about a reconcile: provider kind, generation, release and state. */
export interface ReconcileResult {
  kind: string;
  generation: number;
  releaseId: string | null;
  state: DesiredState;
}

/** Identifier syntax for project, operation and release ids on the wire (bounded, header-safe). */
export const idSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/);
const counter = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The optional rollback field of a running request (agent operation, bridge headers). */
export const rollbackIntentSchema = z.strictObject({ restoreData: z.boolean(), fromReleaseId: idSchema.nullable() });

/** The optional canary field of a running request: only `true` (absent means an ordinary deploy). */
export const canaryIntentSchema = z.literal(true);

/** The exact three-field desired payload (generation, state, release identifier). */
export const desiredSchema = z.strictObject({
  generation: counter,
  state: z.enum(['running', 'stopped']),
  releaseId: idSchema.nullable(),
});

/** Operation identity: project, operation id, fence and (optional) attempt. */
export const operationSchema = z.strictObject({
  projectId: idSchema,
  id: idSchema,
  fence: counter,
  attempt: z.number().int().min(1).max(1000).optional(),
});

/**
 * Check a request's shape: running needs a release and an artifact whose digest matches the decoded
 * bundle; stopped has neither. Throws SVC_VALIDATION / SVC_ARTIFACT_DIGEST_MISMATCH.
 */
export function checkReconcileRequest(request: ReconcileRequest): void {
  const op = operationSchema.safeParse(request.operation);
  const desired = desiredSchema.safeParse(request.desired);
  if (!op.success || !desired.success) throw new SvcError('SVC_VALIDATION', 'The reconcile request has an invalid operation or desired payload');
  if (request.desired.state === 'running') {
    if (request.desired.releaseId === null || request.artifact === null)
      throw new SvcError('SVC_VALIDATION', 'A running generation needs a release and an artifact');
    if (!/^[0-9a-f]{64}$/.test(request.artifact.sha256) || request.artifact.sha256 !== request.artifact.decoded.digest) {
      throw new SvcError('SVC_ARTIFACT_DIGEST_MISMATCH', 'The artifact digest does not match the decoded bundle');
    }
    if (request.rollback != null && !rollbackIntentSchema.safeParse(request.rollback).success)
      throw new SvcError('SVC_VALIDATION', 'The rollback field of the reconcile request is invalid');
    if (request.canary !== undefined && !canaryIntentSchema.safeParse(request.canary).success)
      throw new SvcError('SVC_VALIDATION', 'The canary field of the reconcile request is invalid');
    // A canary is a code-only deploy of a new release; a rollback is never staged as one.
    if (request.canary !== undefined && request.rollback != null)
      throw new SvcError('SVC_VALIDATION', 'A reconcile request is a canary or a rollback, not both');
  } else if (request.desired.releaseId !== null || request.artifact !== null || request.rollback != null || request.canary !== undefined) {
    throw new SvcError('SVC_VALIDATION', 'A stopped generation has no release, artifact, rollback or canary');
  }
}

/** The fixed result of a successful reconcile: never the provider's return value or errors. */
export function reconcileResult(kind: string, request: Pick<ReconcileRequest, 'desired'>): ReconcileResult {
  return { kind, generation: request.desired.generation, releaseId: request.desired.releaseId, state: request.desired.state };
}

/**
 * svc's own stable codes that pass through unchanged: they say what happened to the exchange (stale,
 * aborted, no answer, refused, redirected, fence unresolved), never provider details, and the
 * control plane decides by them whether an operation is retried.
 */
const PASS_THROUGH_CODES: ReadonlySet<string> = new Set([
  'SVC_PROVIDER_STALE_FENCE',
  'SVC_PROVIDER_ABORTED',
  'SVC_PROVIDER_UNREACHABLE',
  'SVC_PROVIDER_REJECTED',
  'SVC_PROVIDER_REDIRECT_REFUSED',
  'SVC_PROVIDER_FENCE_UNRESOLVED',
]);

/**
 * Outcomes of a deploy the control plane records on the release (step and code, as for a project it
 * runs itself): stable codes that name what went wrong, never provider details.
 */
export const DEPLOY_OUTCOME_CODES: ReadonlySet<string> = new Set([
  'SVC_HEALTH_CHECK_FAILED',
  'SVC_MIGRATION_MISSING',
  'SVC_MIGRATION_HISTORY_EDITED',
  'SVC_MIGRATION_OUT_OF_ORDER',
  'SVC_MIGRATION_INVALID_NAME',
  'SVC_MIGRATION_UNSAFE',
  'SVC_MIGRATION_FAILED',
  'SVC_SNAPSHOT_MISSING',
  'SVC_SNAPSHOT_FAILED',
  'SVC_RESTORE_NOT_ALLOWED',
  'SVC_DISK_FULL',
  'SVC_NODE_RESTORE_UNSUPPORTED',
  'SVC_CANARY_PENDING_MIGRATIONS',
  'SVC_CANARY_NO_BASELINE',
  'SVC_CANARY_PROVIDER_UNSUPPORTED',
]);

/** Run a provider and report only the fixed result; other provider errors are replaced by SVC_PROVIDER_FAILED. */
export async function runReconcile(provider: DeploymentProvider, request: ReconcileRequest, onError?: (error: unknown) => void): Promise<ReconcileResult> {
  checkReconcileRequest(request);
  // A provider that predates canaries would run the candidate as an ordinary deploy: refused instead.
  if (request.canary && provider.supportsCanary !== true) throw new SvcError('SVC_CANARY_PROVIDER_UNSUPPORTED', 'This provider cannot stage a canary');
  try {
    await provider.reconcile(request);
  } catch (error) {
    if (error instanceof SvcError && PASS_THROUGH_CODES.has(error.code)) {
      if (error.code !== 'SVC_PROVIDER_STALE_FENCE' && error.code !== 'SVC_PROVIDER_ABORTED') onError?.(error);
      throw error;
    }
    onError?.(error);
    if (error instanceof SvcError && DEPLOY_OUTCOME_CODES.has(error.code) && !request.signal.aborted)
      throw new SvcError(error.code, `The deploy failed: ${error.code}`);
    if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');
    throw new SvcError('SVC_PROVIDER_FAILED', 'The provider could not converge the project');
  }
  return reconcileResult(provider.kind, request);
}
