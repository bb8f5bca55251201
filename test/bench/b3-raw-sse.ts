// B3's baseline, run as its own process (fork with IPC): a minimal node:http SSE server that writes one
// pre-encoded frame to every open response when a POST arrives. Replies { port } once listening.
// With a database path argument, each POST first commits one bare better-sqlite3 INSERT (WAL, synchronous
// FULL) before the broadcast: the floor for a server that must make a write durable before announcing it.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

const dbPath = process.argv[2];
const db = dbPath ? new Database(dbPath) : null;
db?.pragma('journal_mode = WAL');
db?.pragma('synchronous = FULL');
db?.exec('CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, body TEXT)');
const insert = db?.prepare('INSERT INTO writes (body) VALUES (?)');

const clients = new Set<ServerResponse>();
let revision = 0;
const payload = JSON.stringify(Array.from({ length: 20 }, (_, i) => `task ${i}`));
const frameAt = (rev: number): string => `id: ${rev}\nevent: snapshot\ndata: {"value":${payload},"revision":${rev}}\n\n`;
const server = createServer({ noDelay: true }, (req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(frameAt(revision));
    clients.add(res);
    res.on('close', () => clients.delete(res));
    return;
  }
  req.resume();
  req.on('end', () => {
    insert?.run(`write ${revision}`);
    revision++;
    const frame = Buffer.from(frameAt(revision));
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"revision":${revision}}`);
    for (const c of clients) c.write(frame);
  });
});
server.requestTimeout = 0;
server.maxConnections = Number.MAX_SAFE_INTEGER;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => process.send!({ port: (server.address() as AddressInfo).port }));
// The parent asks for this process's CPU time around its measurements.
process.on('message', () => {
  const usage = process.cpuUsage();
  process.send!({ cpuSeconds: (usage.user + usage.system) / 1e6 });
});
process.on('disconnect', () => process.exit(0));
