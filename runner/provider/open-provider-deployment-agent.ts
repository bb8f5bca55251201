// The provider agent: takes operations from a coordinator, accepts only
// canonical `reconcile` operations with the exact three-field desired payload, fetches and verifies an
// artifact only for a running state, calls the provider, then reports the generation as observed.
// The coordinator transport is passed in (runner/agent/create-coordinator-client.ts over HTTP); its
// optional `hold` keeps the lease renewed and aborts the reconcile when the lease is lost.
import { z } from 'zod';
import { decodeArtifact, type ArtifactLimits } from '../../src/artifacts/index.js';
import { SvcError } from '../../src/core/errors.js';
import {
  canaryIntentSchema,
  desiredSchema,
  idSchema,
  rollbackIntentSchema,
  runReconcile,
  type DeploymentProvider,
  type ReconcileResult,
} from './provider-contract.js';

/** An operation as the coordinator hands it out (validated here; anything else is refused). */
export const agentOperationSchema = z.strictObject({
  kind: z.literal('reconcile'),
  id: idSchema,
  projectId: idSchema,
  fence: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  desired: desiredSchema,
  /** Lowercase hex SHA-256 of the release artifact; present exactly for running. */
  artifactSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** A rollback to an older release (running only); with restoreData the node puts its pre-deploy snapshot back. */
  rollback: rollbackIntentSchema.optional(),
  /** Stage the release as a canary beside the running baseline (running only; the pointer stays on the baseline). */
  canary: canaryIntentSchema.optional(),
});
export type AgentOperation = z.output<typeof agentOperationSchema>;

/** What the agent needs from the control plane (HTTP client in production, passed in). */
export interface AgentCoordinator {
  /** The next leased operation, or null when there is none (the agent then waits `idleMs`). */
  next(signal: AbortSignal): Promise<unknown>;
  /** The artifact bytes of a release (verified by the agent against the operation's digest). */
  fetchArtifact(operation: AgentOperation, signal: AbortSignal): Promise<Buffer>;
  /** Report the observed generation (and where its app listens, when known); false when the control plane rejects it as stale. */
  observe(operation: AgentOperation, result: ReconcileResult, upstream?: { host: string; port: number } | null): Promise<boolean>;
  /** Fail an operation with a stable code (never provider details); `operation` when it was valid (its fence). */
  fail(operationId: string, code: string, operation?: AgentOperation): Promise<void>;
  /** Optional: hold the operation's lease while it runs; its signal aborts the reconcile on lease loss. */
  hold?(operation: AgentOperation): OperationHold;
  /** Optional: have the control plane hold the project's requests (stop-first cutover); resolves once held and drained. */
  holdTraffic?(operation: AgentOperation): Promise<void>;
}

/** A held lease: `signal` aborts (reason: an SvcError such as SVC_RUNNER_LEASE_LOST) when it is lost. */
export interface OperationHold {
  signal: AbortSignal;
  /** Stop renewing (called once the operation is observed or failed). */
  release(): void;
}

export interface ProviderDeploymentAgentOptions {
  coordinator: AgentCoordinator;
  provider: DeploymentProvider;
  artifactLimits?: Partial<ArtifactLimits>;
  idleMs?: number;
  /** Abort one reconcile after this long and fail it with SVC_RUNNER_TIMEOUT (default: no bound). */
  operationTimeoutMs?: number;
  /**
   * Where the app of an observed running generation listens, as the node advertises it (undefined:
   * unknown, the observation carries none). Asked after the provider converged, before observing.
   */
  locate?: (operation: AgentOperation) => Promise<{ host: string; port: number } | null | undefined>;
  /** After a failure was reported: e.g. a heartbeat at once, so a route held for a stop-first cutover follows the app the node restored. */
  afterFail?: () => Promise<unknown>;
  onError?: (error: unknown) => void;
}

/** A running agent loop. */
export interface ProviderDeploymentAgent {
  /** Process one operation if there is one; resolves with what happened (for tests and metrics). */
  runOnce(): Promise<'idle' | 'observed' | 'failed' | 'refused'>;
  /** Stop taking operations and wait for the current one (drain); `abort: true` aborts it instead. */
  close(options?: { abort?: boolean }): Promise<void>;
}

/** Open the agent; it polls until `close()`. Pass `idleMs: false`-like large values for manual `runOnce` use. */
export function openProviderDeploymentAgent(options: ProviderDeploymentAgentOptions & { autoStart?: boolean }): ProviderDeploymentAgent {
  const abort = new AbortController();
  const { coordinator, provider } = options;
  let loop: Promise<void> = Promise.resolve();
  let stopping = false;
  let wake: (() => void) | null = null;

  async function runOnce(): Promise<'idle' | 'observed' | 'failed' | 'refused'> {
    const raw = await coordinator.next(abort.signal);
    if (raw === null || raw === undefined) return 'idle';
    const parsed = agentOperationSchema.safeParse(raw);
    if (!parsed.success) {
      const id = idSchema.safeParse((raw as { id?: unknown }).id);
      if (id.success) await coordinator.fail(id.data, 'SVC_VALIDATION');
      return 'refused';
    }
    const op = parsed.data;
    const running = op.desired.state === 'running';
    if (
      running !== (op.artifactSha256 !== null) ||
      running !== (op.desired.releaseId !== null) ||
      (!running && (op.rollback !== undefined || op.canary !== undefined))
    ) {
      await coordinator.fail(op.id, 'SVC_VALIDATION', op);
      return 'refused';
    }
    const hold = coordinator.hold?.(op);
    const timeout = options.operationTimeoutMs ? AbortSignal.timeout(options.operationTimeoutMs) : null;
    const signal = AbortSignal.any([abort.signal, ...(hold ? [hold.signal] : []), ...(timeout ? [timeout] : [])]);
    try {
      let artifact = null;
      if (running) {
        const bytes = await coordinator.fetchArtifact(op, signal);
        const decoded = await decodeArtifact(bytes, {
          expectedDigest: op.artifactSha256!,
          ...(options.artifactLimits ? { limits: options.artifactLimits } : {}),
        });
        artifact = { bytes, sha256: decoded.digest, decoded };
      }
      const traffic = coordinator.holdTraffic ? { hold: () => coordinator.holdTraffic!(op) } : undefined;
      const request = {
        operation: { projectId: op.projectId, id: op.id, fence: op.fence },
        desired: op.desired,
        artifact,
        signal,
        ...(op.rollback ? { rollback: op.rollback } : {}),
        ...(op.canary ? { canary: op.canary } : {}),
        ...(traffic ? { traffic } : {}),
      };
      const result = await runReconcile(provider, request, options.onError);
      const upstream = running && options.locate ? await options.locate(op).catch((error: unknown) => void options.onError?.(error)) : undefined;
      if (!(await (upstream === undefined ? coordinator.observe(op, result) : coordinator.observe(op, result, upstream)))) {
        await coordinator.fail(op.id, 'SVC_PROVIDER_STALE_FENCE', op);
        return 'failed';
      }
      // The control plane answered only once the route moved: apps this switch replaced may stop now.
      if (running) await provider.routed?.(op.projectId, op.desired.generation).catch((error: unknown) => options.onError?.(error));
      return 'observed';
    } catch (error) {
      options.onError?.(error);
      // Lease loss and timeout are reported as such, not as the provider's generic abort.
      const lost = hold?.signal.aborted && hold.signal.reason instanceof SvcError ? hold.signal.reason.code : null;
      const code = lost ?? (timeout?.aborted ? 'SVC_RUNNER_TIMEOUT' : error instanceof SvcError ? error.code : 'SVC_PROVIDER_FAILED');
      await coordinator.fail(op.id, code, op);
      await options.afterFail?.().catch((e: unknown) => options.onError?.(e));
      return 'failed';
    } finally {
      hold?.release();
    }
  }

  if (options.autoStart !== false) {
    loop = (async () => {
      while (!stopping) {
        const outcome = await runOnce().catch((error: unknown) => {
          options.onError?.(error);
          return 'idle' as const;
        });
        if (outcome === 'idle' && !stopping) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, options.idleMs ?? 1000);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      }
    })();
  }

  return {
    runOnce,
    async close(closeOptions = {}) {
      stopping = true;
      wake?.();
      if (closeOptions.abort) abort.abort();
      await loop;
    },
  };
}
