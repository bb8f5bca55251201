// Starts the tasks app on the real runtime (file database, Fetch handler, live route, node adapter).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createFetchHandler } from '../../../../src/runtime/http/create-fetch-handler.js';
import { openDatabase } from '../../../../src/runtime/index.js';
import { createLiveRoute, createNodeLiveServer, type LiveHubInit, type LiveRouteHandle } from '../../../../src/runtime/live/index.js';
import { backend } from './tasks-backend.js';

export interface TasksServer {
  url: string;
  port: number;
  server: Server;
  live: LiveRouteHandle;
  handler: ReturnType<typeof createFetchHandler>;
  db: ReturnType<typeof openDatabase>;
  close(): Promise<void>;
}

/** Open the database at `dbPath` and serve the tasks app on 127.0.0.1:`port` (0 = any). */
export async function startTasksServer(dbPath: string, options: { port?: number; live?: LiveHubInit; pollIntervalMs?: number } = {}): Promise<TasksServer> {
  const db = openDatabase(backend.schema, { path: dbPath, pollIntervalMs: options.pollIntervalMs ?? 50 });
  const live = createLiveRoute(options.live);
  const handler = createFetchHandler(backend, db, { live, onError: () => undefined });
  const server = createNodeLiveServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: '127.0.0.1', backlog: 4096 }, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    live,
    handler,
    db,
    async close() {
      live.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      db.close();
    },
  };
}
