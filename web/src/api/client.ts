// The console's only way to the control plane: fetch on same-origin /api and /__svc/auth routes,
// JSON in and out, the session's CSRF token on state-changing requests, error bodies turned into
// ApiError (code + friendly message), and an ended session sends the user to sign in and back.
import type { z } from 'zod';
import { consoleApiRoutes, consoleSessionResponseSchema } from '../../../src/console/contract.js';
import { CSRF_HEADER } from '../../../src/identity/contract.js';
import { currentRoute, navigate } from '../router.js';
import { friendlyMessage } from './error-messages.js';
import { csrfToken, getSession, setSession } from './session.js';

/** An error answer of the control plane (or a network failure as SVC_NETWORK, status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The route itself is missing: this server does not have the feature yet. */
  get routeMissing(): boolean {
    return this.status === 404 && this.code === 'SVC_NOT_FOUND';
  }
}

export interface RequestOptions<T> {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Validate the success body with this contract schema. */
  schema?: z.ZodType<T>;
  signal?: AbortSignal;
  /** Do not treat 401 as an ended session (sign-in and session probes). */
  anonymous?: boolean;
}

const SESSION_ENDED = new Set(['SVC_AUTH_REQUIRED', 'SVC_SESSION_EXPIRED']);

/** Build `path?query` (undefined values dropped). Pure. */
export function withQuery(path: string, query?: RequestOptions<unknown>['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(method: string, path: string, options: RequestOptions<unknown>): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const token = csrfToken();
  if (method !== 'GET' && method !== 'HEAD' && token) headers[CSRF_HEADER] = token;
  try {
    return await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'SVC_NETWORK', friendlyMessage('SVC_NETWORK', 'Network error'));
  }
}

async function toError(response: Response): Promise<ApiError> {
  let body: { error?: { code?: string; message?: string; details?: Record<string, unknown> } } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // not JSON (e.g. a proxy's HTML error page)
  }
  const code = body.error?.code ?? `HTTP_${response.status}`;
  return new ApiError(
    response.status,
    code,
    friendlyMessage(code, body.error?.message ?? `Request failed with status ${response.status}`),
    body.error?.details,
  );
}

/** Send the user to sign in, then back to where they were. */
export function expireSession(): void {
  if (getSession().status === 'signed-in') setSession({ status: 'signed-out', expired: true });
  const here = currentRoute();
  if (!here.startsWith('/sign-in')) navigate(`/sign-in?next=${encodeURIComponent(here)}&expired=1`, { replace: true });
}

/** Fetch the session (user + CSRF token) through the console's probe, which answers 200 either way. */
export async function loadSession(): Promise<void> {
  const probe = await api('GET', consoleApiRoutes.session, { anonymous: true, schema: consoleSessionResponseSchema });
  if (probe.session) setSession({ status: 'signed-in', user: probe.session.user, csrfToken: probe.session.csrfToken });
  else setSession({ status: 'signed-out', expired: getSession().status === 'signed-in' });
}

/** Call a control-plane route; resolves with the (validated) JSON body or throws ApiError. */
export async function api<T = unknown>(method: string, path: string, options: RequestOptions<T> = {}): Promise<T> {
  let response = await send(method, path, options);
  // A stale CSRF token (e.g. signed in again in another tab): fetch the current one and retry once.
  if (response.status === 403 && method !== 'GET' && !options.anonymous) {
    const error = await toError(response.clone());
    if (error.code === 'SVC_CSRF_INVALID') {
      await loadSession();
      response = await send(method, path, options);
    }
  }
  if (!response.ok) {
    const error = await toError(response);
    if (response.status === 401 && !options.anonymous && SESSION_ENDED.has(error.code)) expireSession();
    throw error;
  }
  const text = await response.text();
  const json: unknown = text ? JSON.parse(text) : undefined;
  if (!options.schema) return json as T;
  const parsed = options.schema.safeParse(json);
  if (!parsed.success) throw new ApiError(response.status, 'SVC_CONSOLE_UNEXPECTED_RESPONSE', `The server answered ${method} ${path} in an unexpected shape.`);
  return parsed.data;
}
