// AgentCoordinator over the control plane's node routes (src/nodes/contract.ts): lease (204 → null),
// lease renewal at a third of leaseMs while an operation runs (loss aborts the reconcile), artifact
// download bounded by SVC_RUNNER_MAX_ARTIFACT_BYTES, the request hold of a stop-first cutover, observe
// (409 stale → false), fail, heartbeat.
import { z } from 'zod';
import { SvcError } from '../../src/core/errors.js';
import {
  artifactMediaType,
  heartbeatResponseSchema,
  holdResponseSchema,
  observeResponseSchema,
  renewResponseSchema,
  type heartbeatRequestSchema,
} from '../../src/nodes/contract.js';
import type { AgentCoordinator, AgentOperation, OperationHold } from '../provider/open-provider-deployment-agent.js';
import type { ReconcileResult } from '../provider/provider-contract.js';
import { createControlHttp, readBounded, readContractJson, readErrorCode, rejected, type ControlHttpOptions } from './control-http.js';

export interface CoordinatorClientOptions extends ControlHttpOptions {
  /** The node credential from the credentials file (never a registration, account or bridge secret). */
  credential: string;
  /** Largest artifact downloaded (SVC_RUNNER_MAX_ARTIFACT_BYTES). */
  maxArtifactBytes: number;
  /** Monotonic milliseconds (default performance.now); lease expiry is tracked on this clock. */
  now?: () => number;
  /** Called once per lost lease (logs). */
  onLeaseLost?: (operationId: string) => void;
  onError?: (error: unknown) => void;
}

/** The coordinator plus the node's heartbeat. */
export interface CoordinatorClient extends AgentCoordinator {
  hold(operation: AgentOperation): OperationHold;
  holdTraffic(operation: AgentOperation): Promise<void>;
  heartbeat(body: z.input<typeof heartbeatRequestSchema>, signal?: AbortSignal): Promise<z.output<typeof heartbeatResponseSchema>>;
}

// The operation itself is validated by the agent (behaviour rule 1), so a malformed one is refused
// and failed there rather than dropped here.
const leaseEnvelopeSchema = z.object({ operation: z.unknown(), leaseExpiresAt: z.string(), leaseMs: z.number().int().min(1) });
const LEASE_LOST_CODES = new Set(['SVC_NODE_LEASE_LOST', 'SVC_RUNNER_LEASE_LOST']);

/** Create the HTTP coordinator client. */
export function createCoordinatorClient(options: CoordinatorClientOptions): CoordinatorClient {
  const http = createControlHttp(options);
  const bearer = options.credential;
  const now = options.now ?? (() => performance.now());
  // Keyed by operation id and fence: a reissued operation (higher fence) is a different lease.
  const leases = new Map<string, { leaseMs: number; expiresAt: number }>();
  const leaseKey = (id: unknown, fence: unknown): string => `${String(id)}@${String(fence)}`;
  const opPath = (id: string, action: string): string => `/api/nodes/operations/${encodeURIComponent(id)}/${action}`;

  return {
    async next(signal) {
      const sentAt = now();
      const response = await http.send({ method: 'POST', path: '/api/nodes/operations/lease', bearer, retry: true, signal });
      if (response.status === 204) {
        response.discard();
        return null;
      }
      if (response.status !== 200) throw rejected('the lease request', response.status, await readErrorCode(response));
      const lease = await readContractJson(response, leaseEnvelopeSchema, 'lease');
      const op = lease.operation as { id?: unknown; fence?: unknown } | null;
      // Expiry counted from when the request was sent: never later than the control plane's own.
      if (typeof op?.id === 'string') leases.set(leaseKey(op.id, op.fence), { leaseMs: lease.leaseMs, expiresAt: sentAt + lease.leaseMs });
      return lease.operation;
    },

    hold(operation) {
      const controller = new AbortController();
      const key = leaseKey(operation.id, operation.fence);
      const lease = leases.get(key) ?? { leaseMs: 30_000, expiresAt: now() + 30_000 };
      let released = false;
      let renewTimer: NodeJS.Timeout | undefined;
      let expiryTimer: NodeJS.Timeout | undefined;
      const lose = (): void => {
        if (released || controller.signal.aborted) return;
        options.onLeaseLost?.(operation.id);
        controller.abort(new SvcError('SVC_RUNNER_LEASE_LOST', `The lease of operation ${operation.id} was lost`));
        stop();
      };
      const stop = (): void => {
        clearTimeout(renewTimer);
        clearTimeout(expiryTimer);
      };
      const armExpiry = (): void => {
        clearTimeout(expiryTimer);
        expiryTimer = setTimeout(lose, Math.max(0, lease.expiresAt - now()));
      };
      const renew = async (): Promise<void> => {
        if (released || controller.signal.aborted) return;
        const sentAt = now();
        try {
          const response = await http.send({
            method: 'POST',
            path: opPath(operation.id, 'renew'),
            bearer,
            json: { fence: operation.fence },
            retry: false,
            timeoutMs: Math.max(1000, Math.ceil(lease.expiresAt - sentAt)),
          });
          if (response.status === 200) {
            await readContractJson(response, renewResponseSchema, 'renew');
            lease.expiresAt = sentAt + lease.leaseMs;
            armExpiry();
          } else if (response.status === 409 || response.status === 404 || response.status === 410) {
            response.discard();
            lose();
            return;
          } else {
            options.onError?.(rejected('a lease renewal', response.status, await readErrorCode(response)));
          }
        } catch (error) {
          // Transient: keep trying until the lease would have expired (the expiry timer decides).
          options.onError?.(error);
        }
        if (!released && !controller.signal.aborted) {
          const ok = lease.expiresAt - now() > lease.leaseMs / 2;
          renewTimer = setTimeout(() => void renew(), ok ? lease.leaseMs / 3 : Math.max(50, lease.leaseMs / 10));
        }
      };
      armExpiry();
      renewTimer = setTimeout(() => void renew(), lease.leaseMs / 3);
      return {
        signal: controller.signal,
        release() {
          released = true;
          stop();
          leases.delete(key);
        },
      };
    },

    async fetchArtifact(operation, signal) {
      const response = await http.send({ method: 'GET', path: opPath(operation.id, 'artifact'), bearer, retry: true, signal, timeoutMs: null });
      if (response.status !== 200) {
        const code = await readErrorCode(response);
        if (response.status === 409 && code && LEASE_LOST_CODES.has(code))
          throw new SvcError('SVC_RUNNER_LEASE_LOST', `The lease of operation ${operation.id} was lost`);
        throw rejected('the artifact download', response.status, code);
      }
      const type = response.header('content-type')?.split(';')[0]?.trim();
      if (type !== artifactMediaType) {
        response.discard();
        throw new SvcError('SVC_RUNNER_CONTROL_REJECTED', `The artifact response has media type ${JSON.stringify(type)}, not ${artifactMediaType}`);
      }
      return readBounded(
        response,
        options.maxArtifactBytes,
        () => new SvcError('SVC_RUNNER_ARTIFACT_TOO_LARGE', `The artifact is larger than ${options.maxArtifactBytes} bytes`),
      );
    },

    async holdTraffic(operation) {
      const response = await http.send({ method: 'POST', path: opPath(operation.id, 'hold'), bearer, retry: true, json: { fence: operation.fence } });
      if (response.status !== 200) {
        const code = await readErrorCode(response);
        if (response.status === 409 && code !== null && LEASE_LOST_CODES.has(code))
          throw new SvcError('SVC_RUNNER_LEASE_LOST', `The lease of operation ${operation.id} was lost`);
        throw rejected('the request hold', response.status, code);
      }
      await readContractJson(response, holdResponseSchema, 'hold');
    },

    async observe(operation, result: ReconcileResult, upstream) {
      const json = { fence: operation.fence, result, ...(upstream === undefined ? {} : { upstream }) };
      const response = await http.send({ method: 'POST', path: opPath(operation.id, 'observe'), bearer, retry: true, json });
      if (response.status === 200) {
        await readContractJson(response, observeResponseSchema, 'observe');
        return true;
      }
      const code = await readErrorCode(response);
      // A stale observation (a newer fence holds the lease, or it expired) is rejected: not ours to record.
      if (response.status === 409 && (code === 'SVC_PROVIDER_STALE_FENCE' || (code !== null && LEASE_LOST_CODES.has(code)))) return false;
      throw rejected('the observation', response.status, code);
    },

    async fail(operationId, code, operation) {
      for (const key of leases.keys())
        if (key.startsWith(`${operationId}@`) && (!operation || key === leaseKey(operation.id, operation.fence))) leases.delete(key);
      const json = operation ? { code, fence: operation.fence } : { code };
      const response = await http.send({ method: 'POST', path: opPath(operationId, 'fail'), bearer, retry: true, json });
      const ok = response.status >= 200 && response.status < 300;
      const errorCode = ok ? null : await readErrorCode(response);
      if (ok) response.discard();
      // Already superseded, re-leased or finished: nothing left for this node to report.
      else if (response.status !== 409 && response.status !== 404) throw rejected('the failure report', response.status, errorCode);
    },

    async heartbeat(body, signal) {
      const response = await http.send({ method: 'POST', path: '/api/nodes/heartbeat', bearer, retry: true, json: body, ...(signal ? { signal } : {}) });
      if (response.status !== 200) throw rejected('the heartbeat', response.status, await readErrorCode(response));
      return readContractJson(response, heartbeatResponseSchema, 'heartbeat');
    },
  };
}
