// The floor of a Node reverse proxy, for B5: node:http in front, one undici Pool (keep-alive) to the
// app, the request's raw headers passed as they are and nothing else — no routing, header rewriting,
// credential stripping, holds, records or metrics. TARGET=http://host:port; prints {"port":N}.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(process.env.TARGET, { connections: 256, pipelining: 1, keepAliveTimeout: 4_000 });
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

class Exchange {
  constructor(res) {
    this.res = res;
  }
  onRequestStart() {}
  onResponseStart(_controller, status, headers) {
    const flat = [];
    for (const name in headers) if (!HOP.has(name)) flat.push(name, headers[name]);
    this.res.writeHead(status, flat);
  }
  onResponseData(_controller, chunk) {
    this.res.write(chunk);
  }
  onResponseEnd() {
    this.res.end();
  }
  onResponseError() {
    if (!this.res.headersSent) this.res.writeHead(502);
    this.res.end();
  }
}

const server = createServer((req, res) => {
  pool.dispatch({ path: req.url, method: req.method, headers: req.rawHeaders, body: null }, new Exchange(res));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => process.exit(0));
