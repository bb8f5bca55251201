// B7: a 512 MB resumable upload in 8 MB chunks (tus PATCHes through the runtime's Fetch handler into the local
// volume: offset checks, running SHA-256, fsync per chunk, verification, rename on commit) against one raw
// streamed PUT of the same bytes to disk (node:http piping into a file, fsync at end) in the same run. The
// client runs in its own process for both sides. Target: resumable >= 70 % of raw; median of alternating rounds.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  createBucketManager,
  createLocalVolumeBackend,
  defineBackend,
  defineSchema,
  openBackend,
  sendFetchResponse,
  toFetchRequest,
} from '../../src/runtime/index.js';
import type { BenchResult } from './bench-types.js';

const MiB = 1024 * 1024;
const TOTAL = 512 * MiB;
const CHUNK = 8 * MiB;
const RUNS = 3;

const CLIENT = join(import.meta.dirname, 'b7-upload-client.ts');

/** Run the uploading client in its own process; resolves with the seconds it measured. */
async function runClient(mode: 'raw' | 'tus', url: string): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLIENT, mode, url, String(TOTAL), String(CHUNK)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`B7 client (${mode}) failed: ${err.slice(-500)}`);
  return (JSON.parse(out) as { seconds: number }).seconds;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Raw baseline: one PUT streamed into a file, fsync at the end. Returns seconds. */
async function rawPut(dir: string): Promise<number> {
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
  try {
    return await runClient('raw', `${url}/raw`);
  } finally {
    await close(server);
    await unlink(target).catch(() => undefined);
  }
}

/** The resumable upload through the bucket manager. Returns seconds (creation through commit). */
async function resumable(dir: string, expectedSha: string, round: number): Promise<number> {
  const manager = await createBucketManager({
    definitions: [
      {
        name: 'bench',
        ownership: 'app',
        visibility: 'private',
        allowedContentTypes: ['application/octet-stream'],
        maxObjectBytes: 1024 * MiB,
        maxBytes: 2048 * MiB,
        perOwnerMaxBytes: 2048 * MiB,
        maxChunkBytes: CHUNK,
      },
    ],
    backend: createLocalVolumeBackend({ root: join(dir, 'volume') }),
    catalogPath: join(dir, 'catalog.sqlite'),
    signingKey: 'b7'.repeat(32),
    env: {},
  });
  const app = openBackend(defineBackend({ schema: defineSchema({}), functions: {} }), { buckets: manager });
  const server = createServer((req, res) => void app.fetch(toFetchRequest(req, {}, res)).then((response) => sendFetchResponse(res, response)));
  const url = await listen(server);
  try {
    const ticket = await manager
      .bucket('bench')
      .createUpload({ key: `big-${round}.bin`, length: TOTAL, contentType: 'application/octet-stream', sha256: expectedSha });
    const seconds = await runClient('tus', `${url}${ticket.path}`);
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
    const raws: number[] = [];
    const tuses: number[] = [];
    for (let round = 0; round < RUNS; round++) {
      let cpu = process.cpuUsage();
      const r = await rawPut(dir);
      const rawCpu = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      const t = await resumable(dir, expectedSha, round);
      const tusCpu = process.cpuUsage(cpu);
      if (process.env.B7_VERBOSE === '1')
        process.stderr.write(
          `  B7 round ${round}: raw ${r.toFixed(2)} s (cpu ${((rawCpu.user + rawCpu.system) / 1e6).toFixed(2)} s), resumable ${t.toFixed(2)} s (cpu ${((tusCpu.user + tusCpu.system) / 1e6).toFixed(2)} s)\n`,
        );
      raws.push(r);
      tuses.push(t);
    }
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const raw = median(raws);
    const tus = median(tuses);
    const mbps = (seconds: number): number => TOTAL / MiB / seconds;
    const ratio = mbps(tus) / mbps(raw);
    return [
      {
        id: 'B7',
        name: 'bucket upload 512 MB, 8 MB tus chunks vs raw PUT (throughput, median)',
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
