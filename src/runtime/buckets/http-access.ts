// Who may use a bucket over HTTP with a session: browserAccess decides; user buckets resolve to the signed-in
// user's partition (never to an id from the request), writes verify CSRF.
import type { Identity } from '../engine.js';
import { RuntimeError } from '../errors.js';
import type { BucketDefinition } from './define-bucket.js';
import { errorResponse } from '../http/responses.js';

/** What the Fetch handler passes to the bucket routes. */
export interface BucketHttpContext {
  readonly request: Request;
  /** Path after `{prefix}/`, e.g. `buckets/photos/uploads`. */
  readonly route: string;
  readonly prefix: string;
  /** The signed-in identity (null when signed out or when the backend has no auth). */
  readonly identity: Identity | null;
  /** Throws SVC_RUNTIME_CSRF unless the request carries the session's CSRF token. */
  checkCsrf(): void;
  /** Reports 5xx errors (the handler's onError). */
  report?(error: unknown): void;
}

/** The partition a session request may use, or a thrown 401/403. */
export function sessionPartition(definition: BucketDefinition, http: BucketHttpContext, write: boolean): string {
  if (definition.browserAccess === 'server') throw new RuntimeError('SVC_BUCKET_FORBIDDEN', `Bucket "${definition.name}" is managed by the server only.`);
  if (http.identity === null) {
    if (!write && definition.browserAccess === 'public') return '';
    throw new RuntimeError('SVC_RUNTIME_UNAUTHENTICATED', 'Sign in to use this bucket.');
  }
  if (write) http.checkCsrf();
  return definition.ownership === 'user' ? http.identity.userId : '';
}

/** A signed-in user may not use another user's capability (bearer tokens stay inside their partition). */
export function checkCapabilityHolder(definition: BucketDefinition, http: BucketHttpContext, owner: string): void {
  if (definition.ownership === 'user' && http.identity !== null && http.identity.userId !== owner) {
    throw new RuntimeError('SVC_BUCKET_FORBIDDEN', 'This capability belongs to another user.');
  }
}

/** Turn client errors into responses with extra headers (tus needs Tus-Resumable on every response). */
export function errorWithHeaders(error: unknown, headers: Record<string, string>, http: BucketHttpContext): Response {
  if (!(error instanceof RuntimeError) || error.status >= 500) throw error;
  const response = errorResponse(error, (e) => http.report?.(e));
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
