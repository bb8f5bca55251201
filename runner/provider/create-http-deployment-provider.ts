// Coordinator side of the HTTP bridge: a DeploymentProvider that sends each reconcile to a remote
// handler, retrying the same idempotent request (same operation id + fence) on network failure,
// 408, 425, 429 and 5xx, refusing redirects, and requiring HTTPS off loopback. `running()` asks the
// provider what it runs (GET /v1/svc/running), so the node can report it.
import { SvcError } from '../../src/core/errors.js';
import { BRIDGE_CANARY_PATH, BRIDGE_MEDIA_TYPE, BRIDGE_PATH, BRIDGE_ROLLBACK_PATH, BRIDGE_RUNNING_PATH, MAX_RUNNING_BYTES, checkBaseUrl, checkBridgeToken, envelopeHeaders, isRetryableStatus, rollbackHeaders, runningAnswerSchema } from './bridge-protocol.js';
import { DEPLOY_OUTCOME_CODES, type DeploymentProvider, type ProjectRunState, type ReconcileRequest } from './provider-contract.js';

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

/** The handler's own codes for a 5xx: the provider answered (anything else in front of it did not). */
const ANSWERED_CODES: ReadonlySet<string> = new Set(['SVC_PROVIDER_FAILED', 'SVC_PROVIDER_ABORTED', 'SVC_PROVIDER_FENCE_UNRESOLVED']);

/** The `error.code` of a small JSON error body, or null (the body is consumed either way). */
async function errorCodeOf(response: Response): Promise<string | null> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  try {
    const text = await response.text();
    if (text.length > 4096) return null;
    const code = (JSON.parse(text) as { error?: { code?: unknown } })?.error?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

const redirectRefused = (): SvcError => new SvcError('SVC_PROVIDER_REDIRECT_REFUSED', 'The provider bridge answered with a redirect; redirects are never followed');
const isRedirect = (response: Response): boolean => response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);

/** A provider whose `reconcile` goes over the authenticated bridge. */
export function createHttpDeploymentProvider(options: HttpDeploymentProviderOptions): DeploymentProvider {
  const base = checkBaseUrl(options.baseUrl);
  const token = checkBridgeToken(options.token);
  const url = new URL(BRIDGE_PATH, base);
  const rollbackUrl = new URL(BRIDGE_ROLLBACK_PATH, base);
  const canaryUrl = new URL(BRIDGE_CANARY_PATH, base);
  const runningUrl = new URL(BRIDGE_RUNNING_PATH, base);
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  return {
    kind: 'http',
    // The provider behind the bridge decides; one that predates canaries answers 404 on their path.
    supportsCanary: true,
    async reconcile(request: ReconcileRequest): Promise<void> {
      const running = request.desired.state === 'running';
      const body = running ? request.artifact?.bytes : undefined;
      // No answer at all leaves the outcome unknown (the provider may have applied it): UNREACHABLE, retried by the control plane.
      let lastError: SvcError = new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached');
      let rollback = running ? (request.rollback ?? null) : null;
      const canary = running && request.canary === true;
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
        if (rollback) Object.assign(headers, rollbackHeaders(rollback));
        const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.attemptTimeoutMs ?? 15 * 60_000)]);
        let response: Response;
        try {
          response = await doFetch(canary ? canaryUrl : rollback ? rollbackUrl : url, { method: 'POST', headers, body: body ? new Uint8Array(body) : null, redirect: 'manual', signal });
        } catch (error) {
          if (request.signal.aborted) throw new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');
          lastError = new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached', { cause: error });
          continue;
        }
        if (response.status === 204) {
          await response.body?.cancel().catch(() => undefined);
          return;
        }
        // A redirect is a configuration error (SVC_PROVIDER_URL points elsewhere): final, never followed.
        if (isRedirect(response)) {
          await response.body?.cancel().catch(() => undefined);
          throw redirectRefused();
        }
        const code = await errorCodeOf(response);
        if (response.status === 409) throw new SvcError('SVC_PROVIDER_STALE_FENCE', 'The provider rejected a stale fence or generation');
        // A provider that predates rollbacks has no rollback path: a restore must never run as a plain
        // deploy there; a code-only rollback is sent as one (as before), and the provider judges it.
        if (rollback && response.status === 404) {
          if (rollback.restoreData) throw new SvcError('SVC_NODE_RESTORE_UNSUPPORTED', 'The provider behind the bridge cannot restore data');
          rollback = null;
          attempt--;
          continue;
        }
        // Never sent again as a plain deploy: the candidate would replace the baseline instead of running beside it.
        if (canary && response.status === 404) throw new SvcError('SVC_CANARY_PROVIDER_UNSUPPORTED', 'The provider behind the bridge cannot stage a canary');
        if (response.status === 422 && code !== null && DEPLOY_OUTCOME_CODES.has(code)) throw new SvcError(code as 'SVC_HEALTH_CHECK_FAILED', `The provider reported ${code}`);
        if (!isRetryableStatus(response.status)) throw new SvcError('SVC_PROVIDER_REJECTED', `The provider bridge rejected the request (${response.status})`);
        lastError =
          response.status >= 500 && code !== null && ANSWERED_CODES.has(code)
            ? new SvcError(code as 'SVC_PROVIDER_FAILED', `The provider bridge answered ${response.status} ${code}`)
            : new SvcError('SVC_PROVIDER_UNREACHABLE', `The provider bridge answered ${response.status} without the provider's answer`);
      }
      throw lastError;
    },

    async running(signal?: AbortSignal): Promise<ProjectRunState[]> {
      const response = await doFetch(runningUrl, {
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
        redirect: 'manual',
        signal: AbortSignal.any([...(signal ? [signal] : []), AbortSignal.timeout(30_000)]),
      }).catch((error: unknown) => {
        throw new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached', { cause: error });
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        if (isRedirect(response)) throw redirectRefused();
        throw new SvcError(isRetryableStatus(response.status) ? 'SVC_PROVIDER_UNREACHABLE' : 'SVC_PROVIDER_REJECTED', `The provider bridge answered ${response.status} to ${BRIDGE_RUNNING_PATH}`);
      }
      const length = Number(response.headers.get('content-length') ?? '0');
      if (length > MAX_RUNNING_BYTES) {
        await response.body?.cancel().catch(() => undefined);
        throw new SvcError('SVC_PROVIDER_REJECTED', 'The running answer of the provider bridge is too large');
      }
      const text = await response.text();
      if (text.length > MAX_RUNNING_BYTES) throw new SvcError('SVC_PROVIDER_REJECTED', 'The running answer of the provider bridge is too large');
      const parsed = runningAnswerSchema.safeParse((() => { try { return JSON.parse(text) as unknown; } catch { return null; } })());
      if (!parsed.success) throw new SvcError('SVC_PROVIDER_REJECTED', 'The running answer of the provider bridge is malformed');
      return parsed.data.projects;
    },
  };
}
