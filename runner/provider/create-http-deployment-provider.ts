// Coordinator side of the HTTP bridge: a DeploymentProvider that sends each reconcile to a remote
// handler, retrying the same idempotent request (same operation id + fence) on network failure,
// 408, 425, 429 and 5xx under svc's retry policy (Retry-After honoured up to 10 s), refusing redirects,
// and requiring HTTPS off loopback. `running()` asks the provider what it runs (GET /v1/svc/running),
// so the node can report it. Every exchange goes through svc's one HTTP client.
import { SvcError } from '../../src/core/errors.js';
import { defaultHttpClient, HttpFailure, type HttpClient, type HttpStream } from '../../src/core/http/http-client.js';
import { abortableSleep, retryLoop } from '../../src/core/retry-loop.js';
import {
  BRIDGE_CANARY_PATH,
  BRIDGE_MEDIA_TYPE,
  BRIDGE_PATH,
  BRIDGE_ROLLBACK_PATH,
  BRIDGE_RUNNING_PATH,
  MAX_RUNNING_BYTES,
  checkBaseUrl,
  checkBridgeToken,
  envelopeHeaders,
  isRetryableStatus,
  rollbackHeaders,
  runningAnswerSchema,
} from './bridge-protocol.js';
import { DEPLOY_OUTCOME_CODES, type DeploymentProvider, type ProjectRunState, type ReconcileRequest } from './provider-contract.js';

export interface HttpDeploymentProviderOptions {
  /** Bridge base address, e.g. `https://provider.example` (plain http only on loopback). */
  baseUrl: string;
  /** Bridge bearer token (32–512 characters); never an account, CLI, enrollment, node or operation credential. */
  token: string;
  /** Deliveries per request including the first (default 5). */
  maxAttempts?: number;
  /** First retry delay; doubles per retry (half of it jitter), capped at 10 s (default 250 ms). */
  retryDelayMs?: number;
  /** Bound on one delivery (default 15 minutes: a reconcile waits for health). */
  attemptTimeoutMs?: number;
  /** The HTTP client (default svc's shared one). */
  http?: HttpClient;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The handler's own codes for a 5xx: the provider answered (anything else in front of it did not). */
const ANSWERED_CODES: ReadonlySet<string> = new Set(['SVC_PROVIDER_FAILED', 'SVC_PROVIDER_ABORTED', 'SVC_PROVIDER_FENCE_UNRESOLVED']);

/** The `error.code` of a small JSON error body, or null (the body is consumed either way). */
async function errorCodeOf(answer: HttpStream): Promise<string | null> {
  const type = answer.header('content-type') ?? '';
  if (!type.includes('json')) {
    answer.discard();
    return null;
  }
  try {
    const code = (JSON.parse((await answer.read(4096)).toString('utf8')) as { error?: { code?: unknown } })?.error?.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

const redirectRefused = (): SvcError =>
  new SvcError('SVC_PROVIDER_REDIRECT_REFUSED', 'The provider bridge answered with a redirect; redirects are never followed');
const isRedirect = (answer: HttpStream): boolean => answer.status >= 300 && answer.status < 400;
const aborted = (): SvcError => new SvcError('SVC_PROVIDER_ABORTED', 'The reconcile was aborted');

/** A provider whose `reconcile` goes over the authenticated bridge. */
export function createHttpDeploymentProvider(options: HttpDeploymentProviderOptions): DeploymentProvider {
  const base = checkBaseUrl(options.baseUrl);
  const token = checkBridgeToken(options.token);
  const url = new URL(BRIDGE_PATH, base);
  const rollbackUrl = new URL(BRIDGE_ROLLBACK_PATH, base);
  const canaryUrl = new URL(BRIDGE_CANARY_PATH, base);
  const runningUrl = new URL(BRIDGE_RUNNING_PATH, base);
  const http = options.http ?? defaultHttpClient;
  const policy = { baseMs: options.retryDelayMs ?? 250, capMs: 10_000 };
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  return {
    kind: 'http',
    // The provider behind the bridge decides; one that predates canaries answers 404 on their path.
    supportsCanary: true,
    async reconcile(request: ReconcileRequest): Promise<void> {
      const running = request.desired.state === 'running';
      const body = running ? request.artifact?.bytes : undefined;
      let rollback = running ? (request.rollback ?? null) : null;
      const canary = running && request.canary === true;
      // One delivery; a provider that predates rollbacks answers 404 on their path, and a code-only
      // rollback is then sent again at once as a plain deploy (the same attempt).
      const deliver = async (attempt: number): Promise<{ kind: 'done'; value: undefined } | { kind: 'retry'; error: SvcError; retryAfter: string | null }> => {
        for (;;) {
          if (request.signal.aborted) throw aborted();
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
          let answer: HttpStream;
          try {
            answer = await http.open({
              method: 'POST',
              url: canary ? canaryUrl : rollback ? rollbackUrl : url,
              headers,
              body: body ? new Uint8Array(body) : null,
              signal: request.signal,
              timeoutMs: options.attemptTimeoutMs ?? 15 * 60_000,
            });
          } catch (error) {
            if (request.signal.aborted) throw aborted();
            // No answer at all leaves the outcome unknown (the provider may have applied it): UNREACHABLE, retried by the control plane.
            return {
              kind: 'retry',
              error: new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached', { cause: error }),
              retryAfter: null,
            };
          }
          if (answer.status === 204) {
            answer.discard();
            return { kind: 'done', value: undefined };
          }
          // A redirect is a configuration error (SVC_PROVIDER_URL points elsewhere): final, never followed.
          if (isRedirect(answer)) {
            answer.discard();
            throw redirectRefused();
          }
          const code = await errorCodeOf(answer);
          if (answer.status === 409) throw new SvcError('SVC_PROVIDER_STALE_FENCE', 'The provider rejected a stale fence or generation');
          // A restore must never run as a plain deploy there; a code-only rollback is sent as one (as
          // before), and the provider judges it.
          if (rollback && answer.status === 404) {
            if (rollback.restoreData) throw new SvcError('SVC_NODE_RESTORE_UNSUPPORTED', 'The provider behind the bridge cannot restore data');
            rollback = null;
            continue;
          }
          // Never sent again as a plain deploy: the candidate would replace the baseline instead of running beside it.
          if (canary && answer.status === 404) throw new SvcError('SVC_CANARY_PROVIDER_UNSUPPORTED', 'The provider behind the bridge cannot stage a canary');
          if (answer.status === 422 && code !== null && DEPLOY_OUTCOME_CODES.has(code))
            throw new SvcError(code as 'SVC_HEALTH_CHECK_FAILED', `The provider reported ${code}`);
          if (!isRetryableStatus(answer.status)) throw new SvcError('SVC_PROVIDER_REJECTED', `The provider bridge rejected the request (${answer.status})`);
          const error =
            answer.status >= 500 && code !== null && ANSWERED_CODES.has(code)
              ? new SvcError(code as 'SVC_PROVIDER_FAILED', `The provider bridge answered ${answer.status} ${code}`)
              : new SvcError('SVC_PROVIDER_UNREACHABLE', `The provider bridge answered ${answer.status} without the provider's answer`);
          return { kind: 'retry', error, retryAfter: answer.header('retry-after') };
        }
      };
      await retryLoop(deliver, { policy, maxAttempts, sleep: options.sleep ?? abortableSleep, signal: request.signal });
    },

    async running(signal?: AbortSignal): Promise<ProjectRunState[]> {
      const unreachable = (error: unknown): SvcError => new SvcError('SVC_PROVIDER_UNREACHABLE', 'The provider bridge could not be reached', { cause: error });
      const answer = await http
        .open({ method: 'GET', url: runningUrl, headers: { authorization: `Bearer ${token}` }, signal, timeoutMs: 30_000 })
        .catch((error: unknown) => {
          throw unreachable(error);
        });
      if (answer.status !== 200) {
        answer.discard();
        if (isRedirect(answer)) throw redirectRefused();
        throw new SvcError(
          isRetryableStatus(answer.status) ? 'SVC_PROVIDER_UNREACHABLE' : 'SVC_PROVIDER_REJECTED',
          `The provider bridge answered ${answer.status} to ${BRIDGE_RUNNING_PATH}`,
        );
      }
      const text = await answer.read(MAX_RUNNING_BYTES).then(
        (bytes) => bytes.toString('utf8'),
        (error: unknown) => {
          if (error instanceof HttpFailure && error.reason === 'too-large')
            throw new SvcError('SVC_PROVIDER_REJECTED', 'The running answer of the provider bridge is too large');
          throw unreachable(error);
        },
      );
      const parsed = runningAnswerSchema.safeParse(
        (() => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            return null;
          }
        })(),
      );
      if (!parsed.success) throw new SvcError('SVC_PROVIDER_REJECTED', 'The running answer of the provider bridge is malformed');
      return parsed.data.projects;
    },
  };
}
