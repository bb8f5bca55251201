// The live route plugged into createFetchHandler({ live }): GET {prefix}/live/{path}?args=.
import type { Identity, LiveRequestContext, LiveRoute, RuntimeEngine } from '../engine.js';
import { isExposedError } from '../errors.js';
import { LiveError } from './live-error.js';
import { LiveHub, type LiveHubInit } from './live-hub.js';
import { liveErrorResponse, liveResponse } from './live-response.js';
import type { LiveQuerySource } from './live-types.js';

/** The live route plus access to its hubs (one per engine) for shutdown and stats. */
export interface LiveRouteHandle extends LiveRoute {
  /** The hub serving an engine (created on first use). */
  hubFor(engine: RuntimeEngine): LiveHub;
  /** Close every hub: streams end with a non-fatal SVC_LIVE_SHUTDOWN so clients reconnect elsewhere. */
  close(): void;
}

/** Adapt the runtime engine to the hub's source interface. */
function engineLiveSource(engine: RuntimeEngine): LiveQuerySource {
  return {
    revision: () => engine.db.revision(),
    onCommit: (listener) => engine.db.onCommit(listener),
    runQuery: (path, args, identity) => engine.runQuery(path, args, identity as Identity | null),
  };
}

/** Create the live route (options: heartbeat, payload, queue and connection bounds; see live-options.ts). */
export function createLiveRoute(init: LiveHubInit = {}): LiveRouteHandle {
  const hubs = new Map<RuntimeEngine, LiveHub>();
  let closed = false;
  const hubFor = (engine: RuntimeEngine): LiveHub => {
    let hub = hubs.get(engine);
    if (!hub) hubs.set(engine, (hub = new LiveHub(engineLiveSource(engine), init)));
    return hub;
  };
  return {
    hubFor,
    close() {
      closed = true;
      for (const hub of hubs.values()) hub.close();
      hubs.clear();
    },
    handle(context: LiveRequestContext): Response {
      if (closed) return liveErrorResponse(503, 'SVC_LIVE_SHUTDOWN', 'The server is shutting down.');
      const hub = hubFor(context.engine);
      const rawArgs = new URL(context.request.url).searchParams.get('args') ?? '';
      if (Buffer.byteLength(rawArgs) > hub.options.maxArgsBytes) {
        return liveErrorResponse(413, 'SVC_LIVE_BAD_ARGS', `args exceed ${hub.options.maxArgsBytes} bytes`);
      }
      const identity = context.identity;
      try {
        const conn = hub.open({
          path: context.path,
          args: context.args,
          identity,
          // Executions are shared per session: a query sees exactly what its session may see.
          partition: identity ? `s:${identity.sessionId}` : '',
          revalidate: identity ? () => context.revalidate()?.userId === identity.userId : undefined,
          lastEventId: context.request.headers.get('last-event-id'),
          signal: context.request.signal,
        });
        return liveResponse(conn, hub.options.maxQueueBytes);
      } catch (error) {
        if (error instanceof LiveError) return liveErrorResponse(error.status, error.code, error.message);
        if (isExposedError(error)) return liveErrorResponse(error.status, error.code, error.message);
        return liveErrorResponse(500, 'SVC_RUNTIME_INTERNAL', 'Internal error');
      }
    },
  };
}
