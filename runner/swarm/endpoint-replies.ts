// How the release endpoint answers: JSON bodies, files with their length and digest, and every error
// as `{ error: { code, message, hint } }` with the registry's status.
import { open } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { ZodError } from 'zod';
import { errorCodes, SvcError } from '../../src/core/errors.js';

/** An endpoint error body: the stable code, what happened, what to do next. */
export interface EndpointErrorBody {
  error: { code: string; message: string; hint: string };
}

/** Any thrown value as the SvcError the endpoint answers (invalid bodies as SVC_VALIDATION, the rest as SVC_INTERNAL). */
export function endpointError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    return new SvcError('SVC_VALIDATION', `Invalid body${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`);
  }
  return new SvcError('SVC_INTERNAL');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export function sendError(res: ServerResponse, error: SvcError): void {
  if (res.headersSent) {
    // Mid-file: the only honest signal left is a cut connection (the length will not match).
    res.destroy();
    return;
  }
  const body: EndpointErrorBody = { error: { code: error.code, message: error.message, hint: errorCodes[error.code].hint } };
  const extra: Record<string, string> = error.status === 401 ? { 'www-authenticate': 'Bearer realm="svc-release"' } : {};
  res.setHeader('connection', 'close');
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  sendJson(res, error.status, body);
}

/** Stream a file with its exact length (taken from the opened descriptor, not the path) and extra headers. */
export async function sendFile(res: ServerResponse, path: string, headers: Record<string, string>): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    throw new SvcError('SVC_RELEASE_ENDPOINT_UNKNOWN', 'The file behind this route is gone');
  }
  try {
    const { size } = await handle.stat();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size, 'cache-control': 'no-store', ...headers });
    await pipeline(handle.createReadStream({ autoClose: false }), res);
    return size;
  } finally {
    await handle.close();
  }
}
