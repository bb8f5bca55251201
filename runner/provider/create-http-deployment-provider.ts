// Coordinator side of the HTTP bridge: a DeploymentProvider that sends each reconcile to a remote
// handler, retrying the same idempotent request (same operation id + fence) on network failure,
// 408, 425, 429 and 5xx, refusing redirects, and requiring HTTPS off loopback.
import { SvcError } from '../../src/core/errors.js';
import { BRIDGE_MEDIA_TYPE, BRIDGE_PATH, checkBaseUrl, checkBridgeToken, envelopeHeaders, isRetryableStatus } from './bridge-protocol.js';
import type { DeploymentProvider, ReconcileRequest } from './provider-contract.js';

export interface HttpDeploymentProviderOptions {
  /** Bridge base address, e.g. `https://provider.example` (plain http only on loopback). */
  baseUrl: string;
  /** Bridge bearer token (32–512 characters); never an account, CLI, enrollment, node or operation credential. */
  token: string;
  /** Deliveries per request including the first (default 5). */
  maxAttempts?: number;
  /** First retry delay; doubles per retry, capped at 10 s (default 250 ms). */
  retryDelayMs?: number;
  /** Bound on one delivery (default 15 minutes: a reconcile waits for health). */
  attemptTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

/** A provider whose `reconcile` goes over the authenticated bridge. */
export function createHttpDeploymentProvider(options: HttpDeploymentProviderOptions): DeploymentProvider {
  const base = checkBaseUrl(options.baseUrl);
  const token = checkBridgeToken(options.token);
  const url = new URL(BRIDGE_PATH, base);
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  return {
    kind: 'http',
    async reconcile(request: ReconcileRequest): Promise<void> {
      const running = request.desired.state === 'running';
      const body = running ? request.artifact?.bytes : undefined;
      let lastError: SvcError = new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached');
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');
        if (attempt > 1) {
          await sleep(Math.min(10_000, (options.retryDelayMs ?? 250) * 2 ** (attempt - 2)), request.signal);
          if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');
        }
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          ...envelopeHeaders({
            projectId: request.operation.projectId,
            operationId: request.operation.id,
            fence: request.operation.fence,
            attempt,
            generation: request.desired.generation,
            state: request.desired.state,
            releaseId: request.desired.releaseId,
            sha256: running ? (request.artifact?.sha256 ?? null) : null,
          }),
        };
        if (body) headers['content-type'] = BRIDGE_MEDIA_TYPE;
        const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.attemptTimeoutMs ?? 15 * 60_000)]);
        let response: Response;
        try {
          response = await doFetch(url, { method: 'POST', headers, body: body ? new Uint8Array(body) : null, redirect: 'manual', signal });
        } catch (error) {
          if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');
          lastError = new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached', { cause: error });
          continue;
        }
        await response.body?.cancel().catch(() => undefined);
        if (response.status === 204) return;
        if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
          throw new SvcError('SVC_PROVIDER_REJECTED', 'The provider bridge answered with a redirect; redirects are refused');
        }
        if (response.status === 409) throw new SvcError('SVC_PROVIDER_STALE_FENCE', 'The provider rejected a stale fence or generation');
        if (!isRetryableStatus(response.status)) throw new SvcError('SVC_PROVIDER_REJECTED', `The provider bridge rejected the request (${response.status})`);
        lastError = new SvcError('SVC_PROVIDER_FAILED', `The provider bridge answered ${response.status}`);
      }
      throw lastError;
    },
  };
}
