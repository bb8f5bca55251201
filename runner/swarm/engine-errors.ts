// What a failed Engine API call means to svc: the daemon is unusable for swarm work (not reachable,
// or not a swarm manager: retry later or fix the host), or it refused this one request. Pure.
import { SvcError } from '../../src/core/errors.js';

/** The HTTP status docker-modem attaches to an engine answer, if the engine answered at all. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message (`{"message": …}`), else the error's. */
function engineMessage(error: unknown): string {
  const json = (error as { json?: unknown } | null)?.json;
  if (json && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string') return (json as { message: string }).message;
  if (Buffer.isBuffer(json) && json.length) return json.toString('utf8').trim();
  return error instanceof Error ? error.message : String(error);
}

/** An Engine API failure as an SvcError with a stable code. */
export function engineError(operation: string, error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const status = engineStatus(error);
  const message = engineMessage(error).slice(0, 500);
  // No answer (socket missing, refused, reset, timed out), or 503: "This node is not a swarm manager".
  if (status === undefined || status === 503) {
    return new SvcError('SVC_SWARM_UNAVAILABLE', `${operation}: ${message}`, { cause: error, details: { operation, ...(status ? { status } : {}) } });
  }
  return new SvcError('SVC_SWARM_REQUEST_FAILED', `${operation}: the engine answered ${status}: ${message}`, { cause: error, details: { operation, status } });
}
