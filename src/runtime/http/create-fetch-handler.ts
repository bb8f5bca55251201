// The Fetch-style endpoint: {prefix}/manifest, query/{path}, mutation/{path}, live/{path}?args=, auth/*.
// Works in any server that speaks Request/Response; node:http apps adapt with toFetchRequest/sendFetchResponse.
import { createAuth, type Auth } from '../auth/create-auth.js';
import type { Session } from '../auth/session-store.js';
import type { BucketManager } from '../buckets/bucket-manager.js';
import type { AppDatabase } from '../database/app-database.js';
import type { Identity, LiveRoute, RuntimeEngine } from '../engine.js';
import { RuntimeError } from '../errors.js';
import { createEngine } from '../functions/create-engine.js';
import type { Backend } from '../functions/define-backend.js';
import { isCrossSite } from './is-cross-site.js';
import { QueryCache } from './query-cache.js';
import { MAX_BODY_BYTES, readJsonBody } from './read-body.js';
import { errorResponse, jsonResponse } from './responses.js';
import { urlPathname } from './url-pathname.js';

/** Options of createFetchHandler. */
export interface FetchHandlerOptions {
  /** Protocol prefix (default `/__svc`). */
  prefix?: string;
  /** Live route implementation (from `@svc-dev/svc/runtime` live module); without it live/ answers 404. */
  live?: LiveRoute;
  /** Receives the real error of every 5xx response (default: console.error). */
  onError?: (error: unknown, request: Request) => void;
  /** Extra origins allowed besides the request's own host. */
  allowedOrigins?: readonly string[];
  /** Cap on JSON request bodies in bytes (default 256 KiB). */
  maxBodyBytes?: number;
  /** Cap on the `args` query parameter of live requests in characters (default 16 KiB). */
  maxLiveArgsChars?: number;
  /** Entries of the per-session query result cache (default 256; 0 turns it off). */
  queryCacheSize?: number;
  /** Use an existing engine instead of creating one. */
  engine?: RuntimeEngine;
  /** Managed buckets: serves `{prefix}/buckets/...` and `{prefix}/files/...`; definitions join the manifest. */
  buckets?: BucketManager;
}

/** The handler plus what pages need to render (session, CSRF meta) and the engine. */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  readonly engine: RuntimeEngine;
  readonly prefix: string;
  /** Whether a request's path is under the prefix. */
  matches(request: Request): boolean;
  /** The signed-in session of a request (null without auth or when signed out). */
  session(request: Request): Session | null;
}

/** Build the Fetch handler for a backend over an opened database. */
export function createFetchHandler(backend: Backend, db: AppDatabase, options: FetchHandlerOptions = {}): FetchHandler {
  const prefix = (options.prefix ?? '/__svc').replace(/\/+$/, '');
  const engine = options.engine ?? createEngine(backend, db);
  const auth: Auth | null = backend.auth === null ? null : createAuth(backend.auth, db.sqlite, db.effects.now);
  const cache = new QueryCache(Math.max(1, options.queryCacheSize ?? 256));
  const useCache = options.queryCacheSize !== 0;
  const report = options.onError ?? ((error: unknown) => console.error('svc runtime: internal error', error));

  function identify(request: Request, path: string): { identity: Identity | null; session: Session | null } {
    const session = auth?.session(request) ?? null;
    if (auth !== null && session === null && engine.kindOf(path) !== undefined && !engine.isPublic(path)) {
      throw new RuntimeError('SVC_RUNTIME_UNAUTHENTICATED', 'Sign in to call this function.');
    }
    return { identity: session?.identity ?? null, session };
  }

  async function route(request: Request, rest: string): Promise<Response> {
    const method = request.method.toUpperCase();
    const slash = rest.indexOf('/');
    const head = slash < 0 ? rest : rest.slice(0, slash);
    const path = slash < 0 ? '' : decodePath(rest.slice(slash + 1));

    if (head === 'manifest' && slash < 0) {
      if (method !== 'GET') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use GET.');
      return jsonResponse(200, { functions: engine.manifest(), buckets: options.buckets?.manifest() ?? backend.buckets, auth: auth !== null, prefix });
    }
    if (head === 'query' || head === 'mutation') {
      if (method !== 'POST') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use POST with JSON arguments.');
      if (engine.kindOf(path) !== head) throw new RuntimeError('SVC_RUNTIME_UNKNOWN_FUNCTION', `No ${head} named "${path}".`);
      const { identity, session } = identify(request, path);
      const args = await readJsonBody(request, options.maxBodyBytes ?? MAX_BODY_BYTES);
      if (head === 'mutation') {
        // Cookie sessions are ambient credentials: writes must prove they come from our page.
        if (session !== null) auth!.checkCsrf(request, session);
        const run = engine.runMutation(path, args, identity);
        return jsonResponse(200, { value: run.value, revision: run.revision });
      }
      db.pollExternalChanges();
      const key = QueryCache.key(identity?.sessionId ?? null, path, args);
      const cached = useCache ? cache.get(key, db.revision()) : undefined;
      if (cached !== undefined) return jsonResponse(200, null, {}, cached);
      const run = engine.runQuery(path, args, identity);
      const json = JSON.stringify({ value: run.value, revision: run.revision });
      if (useCache && run.revision === db.revision()) cache.set(key, run.revision, json);
      return jsonResponse(200, null, {}, json);
    }
    if (head === 'live') {
      if (method !== 'GET') throw new RuntimeError('SVC_RUNTIME_METHOD_NOT_ALLOWED', 'Use GET.');
      if (options.live === undefined || engine.kindOf(path) !== 'query')
        throw new RuntimeError('SVC_RUNTIME_UNKNOWN_FUNCTION', `No live query named "${path}".`);
      const { identity } = identify(request, path);
      const raw = new URL(request.url).searchParams.get('args') ?? '{}';
      if (raw.length > (options.maxLiveArgsChars ?? 16 * 1024)) throw new RuntimeError('SVC_RUNTIME_PAYLOAD_TOO_LARGE', 'The args parameter is too long.');
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch {
        throw new RuntimeError('SVC_RUNTIME_MALFORMED_JSON', 'The args parameter is not valid JSON.');
      }
      const revalidate = (): Identity | null => {
        if (identity === null) return null;
        return auth?.isActive(identity) === false ? null : identity;
      };
      return await options.live.handle({ request, path, args, identity, engine, revalidate });
    }
    if (head === 'auth' && auth !== null) return auth.handle(path, request);
    // `mcp` (agent tools, bearer tokens) and `buckets` (inventory page) are served by the manager too.
    if ((head === 'buckets' || head === 'files' || head === 'mcp') && options.buckets !== undefined) {
      const session = auth?.session(request) ?? null;
      const checkCsrf = () => (session === null ? undefined : auth!.checkCsrf(request, session));
      return await options.buckets.handleHttp({
        request,
        route: rest,
        prefix,
        identity: session?.identity ?? null,
        checkCsrf,
        report: (e) => report(e, request),
      });
    }
    throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `No runtime route ${prefix}/${rest}.`);
  }

  const handler = async (request: Request): Promise<Response> => {
    try {
      const pathname = urlPathname(request.url);
      if (!pathname.startsWith(`${prefix}/`)) throw new RuntimeError('SVC_RUNTIME_NOT_FOUND', `Not a runtime route (prefix ${prefix}).`);
      if (isCrossSite(request, options.allowedOrigins)) throw new RuntimeError('SVC_RUNTIME_CROSS_SITE', 'Cross-site requests are rejected.');
      return await route(request, pathname.slice(prefix.length + 1));
    } catch (error) {
      return errorResponse(error, (e) => report(e, request));
    }
  };

  return Object.assign(handler, {
    engine,
    prefix,
    matches: (request: Request) => urlPathname(request.url).startsWith(`${prefix}/`),
    session: (request: Request) => auth?.session(request) ?? null,
  });
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RuntimeError('SVC_RUNTIME_UNKNOWN_FUNCTION', 'Malformed function path.');
  }
}
