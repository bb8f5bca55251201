import { mkdtemp } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBucketManager, createLocalVolumeBackend, defineBackend, defineSchema, openBackend, sendFetchResponse, toFetchRequest } from '../../../src/runtime/index.js';
const MiB = 1024 * 1024, TOTAL = 256 * MiB, CHUNK = 8 * MiB;
const piece = Buffer.alloc(MiB, 9); (globalThis as any).__t = {};
const dir = await mkdtemp(join(tmpdir(), 'trace-'));
const inner = createLocalVolumeBackend({ root: join(dir, 'v') });
let backendMs = 0;
const backend = { ...inner, writeChunk: async (...a: Parameters<typeof inner.writeChunk>) => { const t = performance.now(); try { return await inner.writeChunk(...a); } finally { backendMs += performance.now() - t; } } };
const manager = await createBucketManager({ definitions: [{ name: 'b', ownership: 'app', visibility: 'private', allowedContentTypes: ['application/octet-stream'], maxObjectBytes: 1024 * MiB, maxBytes: 2048 * MiB, perOwnerMaxBytes: 2048 * MiB }], backend, catalogPath: join(dir, 'c.sqlite'), signingKey: 'x'.repeat(40), env: {} });
const app = openBackend(defineBackend({ schema: defineSchema({}), functions: {} }), { buckets: manager });
let handlerMs = 0;
const server = createServer((req, res) => { const t = performance.now(); void app.fetch(toFetchRequest(req, {}, res)).then((r) => { handlerMs += performance.now() - t; return sendFetchResponse(res, r); }); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as any).port}`;
const ticket = await manager.bucket('b').createUpload({ key: 'k', length: TOTAL, contentType: 'application/octet-stream' });
let clientMs = 0;
const t0 = performance.now();
for (let off = 0; off < TOTAL; off += CHUNK) {
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    const req = request(`${url}${ticket.path}`, { method: 'PATCH', headers: { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(off), 'content-length': String(CHUNK) } }, (res) => { res.resume(); res.on('end', () => res.statusCode === 204 ? resolve() : reject(new Error(String(res.statusCode)))); });
    let n = 0; const pump = () => { while (n < 8) { n++; if (!req.write(piece)) return void req.once('drain', pump); } req.end(); }; pump();
  });
  clientMs += performance.now() - t;
}
console.log('total', ((performance.now() - t0) / 1000).toFixed(2), 's; handler', (handlerMs / 1000).toFixed(2), 'backend.writeChunk', (backendMs / 1000).toFixed(2));
console.log((globalThis as any).__t); server.close(); await manager.close(); app.close();
