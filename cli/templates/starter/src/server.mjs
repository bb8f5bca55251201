// {{name}}: a plain node:http server following the svc process contract.
// The platform starts `node dist/server.mjs` with PORT, HOST, SVC_DATABASE_PATH (migrations
// already applied), SVC_DATA_DIR and SVC_RELEASE_ID set; the release directory is read-only.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const MAX_BODY = 64 * 1024;

let db;
// Open the database on first use: `@svc-dev/svc/sqlite` (better-sqlite3) is provided by the platform.
async function database() {
  if (db) return db;
  const file = process.env.SVC_DATABASE_PATH;
  if (!file) throw Object.assign(new Error('SVC_DATABASE_PATH is not set'), { status: 503 });
  const { default: Database } = await import('@svc-dev/svc/sqlite');
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  return db;
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req) {
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 });
  }
}

async function handle(req, res) {
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  if (pathname === '/healthz') return send(res, 200, { ok: true });
  if (pathname === '/' && req.method === 'GET') {
    return send(res, 200, { app: '{{name}}', release: process.env.SVC_RELEASE_ID ?? null });
  }
  if (pathname === '/notes' && req.method === 'GET') {
    const rows = (await database()).prepare('SELECT id, text, created_at AS createdAt FROM notes ORDER BY id').all();
    return send(res, 200, { notes: rows });
  }
  if (pathname === '/notes' && req.method === 'POST') {
    const body = await readJson(req);
    if (typeof body.text !== 'string' || body.text.length === 0 || body.text.length > 1000) {
      return send(res, 400, { error: 'text must be a string of 1 to 1000 characters' });
    }
    const info = (await database()).prepare('INSERT INTO notes (text) VALUES (?)').run(body.text);
    return send(res, 201, { id: Number(info.lastInsertRowid), text: body.text });
  }
  return send(res, 404, { error: 'not found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!error.status) console.error(error);
    send(res, error.status ?? 500, { error: error.status ? error.message : 'internal error' });
  });
});

server.listen(port, host, () => console.log(`{{name}} listening on http://${host}:${server.address().port}`));

// Stop accepting connections on SIGTERM so the platform can swap releases cleanly.
process.on('SIGTERM', () => {
  server.close(() => {
    db?.close();
    process.exit(0);
  });
});
