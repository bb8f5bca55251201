// The svc client for browsers and Node 20: one-shot queries, mutations (with CSRF) and live queries.
import { SvcClientError } from './client-error.js';
import { readCsrfMeta } from './csrf.js';
import { LiveSubscription, type LiveSeed } from './live-subscription.js';
import { errorBodySchema } from './wire.js';

/** Header that carries the CSRF token on mutations. */
export const CSRF_HEADER = 'x-svc-csrf';

/** Options of createClient. */
export interface ClientOptions {
  /** Origin (and optional base path) of the app; defaults to the page's origin in browsers. */
  url?: string;
  /** Protocol prefix (default `/__svc`). */
  prefix?: string;
  /** fetch implementation (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** CSRF token, or a function returning it; default: `<meta name="svc-csrf">` in browsers. */
  csrfToken?: string | (() => string | undefined);
  /** Cookie mode of requests (default 'same-origin'; 'include' for a cross-origin app server). */
  credentials?: RequestCredentials;
  /** Reconnect backoff of live queries (default 250 ms doubling up to 10 s, jittered). */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Reconnect a live query when no bytes (not even a heartbeat) arrived for this long (default 45 s). */
  idleTimeoutMs?: number;
}

/** The client returned by createClient. */
export interface SvcClient {
  /** Run a query once. */
  query<T = unknown>(path: string, args?: Record<string, unknown>): Promise<T>;
  /** Run a mutation (sends the CSRF token). */
  mutation<T = unknown>(path: string, args?: Record<string, unknown>): Promise<T>;
  /** Subscribe to a live query; optionally seeded from server rendering. */
  live<T = unknown>(path: string, args?: Record<string, unknown>, seed?: LiveSeed<T>): LiveSubscription<T>;
  /** Close every live subscription this client opened. */
  close(): void;
}

/** Create a client for an app that embeds the svc runtime. */
export function createClient(options: ClientOptions = {}): SvcClient {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base = baseUrl(options.url) + (options.prefix ?? '/__svc');
  const credentials = options.credentials ?? 'same-origin';
  const subscriptions = new Set<LiveSubscription<unknown>>();
  const endpoint = (kind: string, path: string): string => `${base}/${kind}/${path.split('/').map(encodeURIComponent).join('/')}`;
  const csrf = (): string | undefined => (typeof options.csrfToken === 'function' ? options.csrfToken() : (options.csrfToken ?? readCsrfMeta()));

  async function call<T>(kind: 'query' | 'mutation', path: string, args: Record<string, unknown>): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    const token = kind === 'mutation' ? csrf() : undefined;
    if (token) headers[CSRF_HEADER] = token;
    let response: Response;
    try {
      response = await fetchImpl(endpoint(kind, path), { method: 'POST', headers, body: JSON.stringify(args), credentials });
    } catch (error) {
      throw new SvcClientError('SVC_CLIENT_NETWORK', `Request failed: ${(error as Error).message}`);
    }
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const body = errorBodySchema.safeParse(json);
      if (body.success) throw new SvcClientError(body.data.error.code, body.data.error.message, response.status, body.data.error.data);
      throw new SvcClientError('SVC_CLIENT_HTTP', `HTTP ${response.status}`, response.status);
    }
    return decodeResult(json) as T;
  }

  return {
    query: (path, args = {}) => call('query', path, args),
    mutation: (path, args = {}) => call('mutation', path, args),
    live<T>(path: string, args: Record<string, unknown> = {}, seed: LiveSeed<T> = {}): LiveSubscription<T> {
      const sub = new LiveSubscription<T>(
        {
          url: `${endpoint('live', path)}?args=${encodeURIComponent(JSON.stringify(args))}`,
          fetch: fetchImpl,
          credentials,
          backoff: { initialMs: options.reconnect?.initialMs ?? 250, maxMs: options.reconnect?.maxMs ?? 10_000 },
          idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
          random: Math.random,
        },
        seed,
      );
      subscriptions.add(sub as LiveSubscription<unknown>);
      return sub;
    },
    close() {
      for (const sub of subscriptions) sub.close();
      subscriptions.clear();
    },
  };
}

function baseUrl(url: string | undefined): string {
  if (url !== undefined) return url.replace(/\/+$/, '');
  const location = (globalThis as { location?: { origin: string } }).location;
  if (location) return location.origin;
  throw new SvcClientError('SVC_CLIENT_CONFIG', 'createClient needs { url } outside a browser');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Successful responses are `{ "value": <result>, "revision": n }`. */
function decodeResult(json: unknown): unknown {
  if (json !== null && typeof json === 'object' && 'value' in json) return (json as { value: unknown }).value;
  throw new SvcClientError('SVC_CLIENT_PROTOCOL', 'Malformed response from the server');
}
