import { mkdtemp, open } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBucketManager, createLocalVolumeBackend, defineBackend, defineSchema, openBackend, sendFetchResponse, toFetchRequest } from '../../../src/runtime/index.js';
const MiB = 1024 * 1024, TOTAL = 256 * MiB, CHUNK = 8 * MiB;
const piece = Buffer.alloc(MiB, 9);
const mode = process.argv[2];
const dir = await mkdtemp(join(tmpdir(), 'trace-'));
const inner = createLocalVolumeBackend({ root: join(dir, 'v') });
const sink = join(dir, 'sink.bin');
const backend = { ...inner, writeChunk: async (state: string, offset: number, chunk: AsyncIterable<Uint8Array>, length: number) => {
  if (mode === 'null') { for await (const _ of chunk) {} return state; }
  if (mode === 'nosync' || mode === 'sync') { const h = await open(sink, 'a'); for await (const p of chunk) await h.write(p); if (mode === 'sync') await h.datasync(); await h.close(); return state; }
  return inner.writeChunk(state, offset, chunk, length);
} };
const manager = await createBucketManager({ definitions: [{ name: 'b', ownership: 'app', visibility: 'private', allowedContentTypes: ['application/octet-stream'], maxObjectBytes: 1024 * MiB, maxBytes: 2048 * MiB, perOwnerMaxBytes: 2048 * MiB }], backend, catalogPath: join(dir, 'c.sqlite'), signingKey: 'x'.repeat(40), env: {} });
const app = openBackend(defineBackend({ schema: defineSchema({}), functions: {} }), { buckets: manager });
const server = createServer((req, res) => void app.fetch(toFetchRequest(req, {}, res)).then((r) => sendFetchResponse(res, r)));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as any).port}`;
const ticket = await manager.bucket('b').createUpload({ key: 'k', length: TOTAL, contentType: 'application/octet-stream' });
const t0 = performance.now();
for (let off = 0; off < TOTAL; off += CHUNK) {
  await new Promise<void>((resolve, reject) => {
    const req = request(`${url}${ticket.path}`, { method: 'PATCH', headers: { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(off), 'content-length': String(CHUNK) } }, (res) => { res.resume(); res.on('end', () => res.statusCode === 204 || res.statusCode === 500 || off + CHUNK === TOTAL ? resolve() : reject(new Error(String(res.statusCode)))); });
    let n = 0; const pump = () => { while (n < 8) { n++; if (!req.write(piece)) return void req.once('drain', pump); } req.end(); }; pump();
  });
}
console.log(mode.padEnd(8), 'MiB/s', (TOTAL / MiB / ((performance.now() - t0) / 1000)).toFixed(0));
server.close(); await manager.close(); app.close();
