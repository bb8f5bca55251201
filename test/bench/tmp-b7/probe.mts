import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer, request } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const MiB = 1024 * 1024, TOTAL = 256 * MiB;
const piece = Buffer.alloc(MiB, 3);
function send(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(TOTAL) } }, (res) => { res.resume(); res.on('end', resolve); });
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => { while (sent < TOTAL / MiB) { sent++; if (!req.write(piece)) return void req.once('drain', pump); } req.end(); };
    pump();
  });
}
async function run(name: string, handler: (req: any) => Promise<void>) {
  const server = createServer((req, res) => void handler(req).then(() => res.writeHead(204).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as any).port}/`;
  const t = performance.now();
  await send(url);
  const s = (performance.now() - t) / 1000;
  console.log(name.padEnd(30), (TOTAL / MiB / s).toFixed(0), 'MiB/s');
  server.close();
}
const file = '/tmp/probe.bin';
for (let i = 0; i < 2; i++) {
await run('raw', (req) => pipeline(req, createWriteStream(file)));
await run('raw+hash', async (req) => { const h = createHash('sha256'); await pipeline(req, new Transform({ transform(c, _e, d) { h.update(c); d(null, c); } }), createWriteStream(file)); });
await run('web roundtrip', (req) => pipeline(Readable.fromWeb(Readable.toWeb(req) as any), createWriteStream(file)));
await run('web roundtrip+hash', async (req) => { const h = createHash('sha256'); await pipeline(Readable.fromWeb(Readable.toWeb(req) as any), new Transform({ transform(c, _e, d) { h.update(c); d(null, c); } }), createWriteStream(file)); });
await run('drain only', async (req) => { for await (const _ of req) {} });
}
