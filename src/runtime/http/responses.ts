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

// The text of each JSON response, so a node:http adapter can send it in one write with Content-Length
// instead of pumping the body stream (headers, chunk and terminator were three writes per mutation).
const bodies = new WeakMap<Response, string>();

/** A JSON response (body given as a value or as already-serialized text). */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}, serialized?: string): Response {
  // Response copies its init headers, so the shared constant is safe to pass when nothing is added.
  const init = { status, headers: Object.keys(headers).length === 0 ? JSON_HEADERS : { ...JSON_HEADERS, ...headers } };
  const text = serialized ?? JSON.stringify(body);
  const response = new Response(text, init);
  bodies.set(response, text);
  return response;
}

/** The whole body of a response made by jsonResponse whose stream nobody has read; otherwise undefined. */
export function knownJsonBody(response: Response): string | undefined {
  return response.bodyUsed ? undefined : bodies.get(response);
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
