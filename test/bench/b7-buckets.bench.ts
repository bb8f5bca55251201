// B7: a 512 MB resumable upload in 8 MB chunks (tus PATCHes through the runtime's Fetch handler into the local
// volume: offset checks, running SHA-256, fsync per chunk, verification, rename on commit) against one raw
// streamed PUT of the same bytes to disk (node:http piping into a file, fsync at end) in the same run.
// Target: resumable throughput >= 70 % of raw. Best of alternating runs for both sides.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBucketManager, createLocalVolumeBackend, defineBackend, defineSchema, openBackend, sendFetchResponse, toFetchRequest } from '../../src/runtime/index.js';
import type { BenchResult } from './bench-types.js';

const MiB = 1024 * 1024;
const TOTAL = 512 * MiB;
const CHUNK = 8 * MiB;
const RUNS = 3;

/** Send `count` copies of `piece` as the body of one request; resolves with the status. */
function send(url: string, method: string, headers: Record<string, string>, piece: Buffer, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': String(piece.length * count) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => {
      while (sent < count) {
        sent += 1;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Raw baseline: one PUT streamed into a file, fsync at the end. Returns seconds. */
async function rawPut(dir: string, piece: Buffer): Promise<number> {
  const target = join(dir, 'raw.bin');
  const server = createServer((req, res) => {
    void (async () => {
      await pipeline(req, createWriteStream(target, { highWaterMark: MiB }));
      const handle = await open(target, 'r+');
      await handle.datasync();
      await handle.close();
      res.writeHead(201).end();
    })();
  });
  const url = await listen(server);
  const started = performance.now();
  const status = await send(`${url}/raw`, 'PUT', { 'content-type': 'application/octet-stream' }, piece, TOTAL / piece.length);
  const seconds = (performance.now() - started) / 1000;
  await close(server);
  await unlink(target);
  if (status !== 201) throw new Error(`raw PUT answered ${status}`);
  return seconds;
}

/** The resumable upload through the bucket manager. Returns seconds (creation through commit). */
async function resumable(dir: string, piece: Buffer, expectedSha: string, round: number): Promise<number> {
  const manager = await createBucketManager({
    definitions: [{ name: 'bench', ownership: 'app', visibility: 'private', allowedContentTypes: ['application/octet-stream'], maxObjectBytes: 1024 * MiB, maxBytes: 2048 * MiB, perOwnerMaxBytes: 2048 * MiB, maxChunkBytes: CHUNK }],
    backend: createLocalVolumeBackend({ root: join(dir, 'volume') }),
    catalogPath: join(dir, 'catalog.sqlite'),
    signingKey: 'b7'.repeat(32),
    env: {},
  });
  const app = openBackend(defineBackend({ schema: defineSchema({}), functions: {} }), { buckets: manager });
  const server = createServer((req, res) => void app.fetch(toFetchRequest(req, {}, res)).then((response) => sendFetchResponse(res, response)));
  const url = await listen(server);
  try {
    const started = performance.now();
    const ticket = await manager.bucket('bench').createUpload({ key: `big-${round}.bin`, length: TOTAL, contentType: 'application/octet-stream', sha256: expectedSha });
    for (let offset = 0; offset < TOTAL; offset += CHUNK) {
      const status = await send(`${url}${ticket.path}`, 'PATCH', { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, piece, CHUNK / piece.length);
      if (status !== 204) throw new Error(`PATCH at ${offset} answered ${status}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const info = manager.bucket('bench').stat({ key: `big-${round}.bin` });
    if (info.size !== TOTAL || info.sha256 !== expectedSha) throw new Error('B7 upload did not publish the expected object');
    await manager.bucket('bench').delete({ key: `big-${round}.bin` });
    return seconds;
  } finally {
    await close(server);
    app.close();
    await manager.close();
  }
}

/** B7 rows: resumable vs raw throughput (MB/s, higher is better; ratio = resumable / raw). */
export default async function b7(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-b7-'));
  try {
    const piece = Buffer.alloc(MiB);
    for (let i = 0; i < piece.length; i += 4) piece.writeUInt32LE((i * 2654435761) >>> 0, i);
    const hash = createHash('sha256');
    for (let i = 0; i < TOTAL / piece.length; i++) hash.update(piece);
    const expectedSha = hash.digest('hex');
    let raw = Infinity;
    let tus = Infinity;
    for (let round = 0; round < RUNS; round++) {
      let cpu = process.cpuUsage();
      const r = await rawPut(dir, piece);
      const rawCpu = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      const t = await resumable(dir, piece, expectedSha, round);
      const tusCpu = process.cpuUsage(cpu);
      if (process.env.B7_VERBOSE === '1') process.stderr.write(`  B7 round ${round}: raw ${r.toFixed(2)} s (cpu ${((rawCpu.user + rawCpu.system) / 1e6).toFixed(2)} s), resumable ${t.toFixed(2)} s (cpu ${((tusCpu.user + tusCpu.system) / 1e6).toFixed(2)} s)\n`);
      raw = Math.min(raw, r);
      tus = Math.min(tus, t);
    }
    const mbps = (seconds: number): number => TOTAL / MiB / seconds;
    const ratio = mbps(tus) / mbps(raw);
    return [
      {
        id: 'B7',
        name: 'bucket upload 512 MB, 8 MB tus chunks vs raw PUT (throughput)',
        value: mbps(tus),
        unit: 'MiB/s',
        baseline: mbps(raw),
        baselineName: 'raw streamed PUT to disk',
        ratio,
        target: '>= 0.70x',
        pass: ratio >= 0.7,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
