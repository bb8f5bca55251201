// JSON responses and error mapping: exposed runtime errors keep their code and message; everything
// else is redacted to a generic 500 and reported to onError.
import { AppError, RuntimeError } from '../errors.js';

/** Headers on every runtime JSON response: never cached by shared caches, no sniffing. */
export const JSON_HEADERS: Record<string, string> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  vary: 'Cookie',
};

/** A JSON response (body given as a value or as already-serialized text). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}, serialized?: string): Response {
  // Response copies its init headers, so the shared constant is safe to pass when nothing is added.
  const init = { status, headers: Object.keys(headers).length === 0 ? JSON_HEADERS : { ...JSON_HEADERS, ...headers } };
  return new Response(serialized ?? JSON.stringify(body), init);
}

/** The response for a thrown error; calls `report` for server-side failures with the real error. */
export function errorResponse(error: unknown, report: (error: unknown) => void): Response {
  if (error instanceof RuntimeError) {
    if (error.status >= 500) report(error);
    const message = error.expose ? error.message : 'Internal error.';
    const data = error instanceof AppError ? { data: error.data } : {};
    return jsonResponse(error.status, { error: { code: error.code, message, ...data } });
  }
  report(error);
  return jsonResponse(500, { error: { code: 'SVC_RUNTIME_INTERNAL', message: 'Internal error.' } });
}
