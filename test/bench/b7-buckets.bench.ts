// B7: a 512 MB resumable upload in 8 MB chunks (tus PATCHes through the runtime's Fetch handler into the local
// volume: offset checks, running SHA-256, fsync per chunk, verification, rename on commit) against one raw
// streamed PUT of the same bytes to disk (node:http piping into a file, fsync at end) in the same run. The
// client runs in its own process for both sides. Target: resumable >= 70 % of raw; median of the per-round
// ratios of interleaved rounds (rounds.ts). SVC_B7_MB shrinks the upload for quick runs (the row says the size).
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
import { interleave, median, pairedRatios, roundsFrom } from './rounds.js';

const MiB = 1024 * 1024;
const TOTAL = Number(process.env.SVC_B7_MB ?? 512) * MiB;
const CHUNK = 8 * MiB;
const ROUNDS = roundsFrom(process.env.SVC_B7_ROUNDS);

const CLIENT = join(import.meta.dirname, 'b7-upload-client.ts');

/** What one upload cost: the client's wall seconds and the server process's CPU seconds meanwhile. */
interface Upload {
  seconds: number;
  cpu: number;
}

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

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Raw baseline: one PUT streamed into a file, fsync at the end. Returns seconds. */
async function rawPut(dir: string): Promise<Upload> {
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
    const cpu = process.cpuUsage();
    const seconds = await runClient('raw', `${url}/raw`);
    return { seconds, cpu: cpuSeconds(cpu) };
  } finally {
    await close(server);
    await unlink(target).catch(() => undefined);
  }
}

/** The resumable upload through the bucket manager. Returns seconds (creation through commit). */
async function resumable(dir: string, expectedSha: string, round: number): Promise<Upload> {
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
    const cpu = process.cpuUsage();
    const ticket = await manager
      .bucket('bench')
      .createUpload({ key: `big-${round}.bin`, length: TOTAL, contentType: 'application/octet-stream', sha256: expectedSha });
    const seconds = await runClient('tus', `${url}${ticket.path}`);
    const used = cpuSeconds(cpu);
    const info = manager.bucket('bench').stat({ key: `big-${round}.bin` });
    if (info.size !== TOTAL || info.sha256 !== expectedSha) throw new Error('B7 upload did not publish the expected object');
    await manager.bucket('bench').delete({ key: `big-${round}.bin` });
    return { seconds, cpu: used };
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
    // CPU seconds of the server process per side, from the upload's creation to the client's exit (the
    // client is its own process, the same for both).
    const cpu = { ours: [] as number[], baseline: [] as number[] };
    const timed = async (side: 'ours' | 'baseline', run: () => Promise<Upload>): Promise<number> => {
      const { seconds, cpu: used } = await run();
      cpu[side].push(used);
      if (process.env.B7_VERBOSE === '1') process.stderr.write(`  B7 ${side}: ${seconds.toFixed(2)} s (cpu ${used.toFixed(2)} s)\n`);
      return TOTAL / MiB / seconds;
    };
    const paired = await interleave(
      ROUNDS,
      (round) => timed('ours', () => resumable(dir, expectedSha, round)),
      () => timed('baseline', () => rawPut(dir)),
    );
    const ratio = pairedRatios(paired);
    const cpuRatio = pairedRatios({ ours: cpu.baseline, baseline: cpu.ours });
    const size = `${TOTAL / MiB} MB`;
    return [
      {
        id: 'B7',
        name: `bucket upload ${size}, 8 MB tus chunks ÷ raw PUT (throughput, median of ${ROUNDS} rounds; higher is better)`,
        value: median(paired.ours),
        unit: 'MiB/s',
        baseline: median(paired.baseline),
        baselineName: 'raw streamed PUT to disk',
        ratio: ratio.median,
        range: { min: ratio.min, max: ratio.max, rounds: ratio.rounds },
        target: '>= 0.70x',
        pass: ratio.median >= 0.7,
      },
      {
        id: 'B7',
        name: `same uploads, server CPU per MiB: raw ÷ resumable (MiB per CPU-second, median of ${ROUNDS} rounds; higher is better)`,
        value: TOTAL / MiB / median(cpu.ours),
        unit: 'MiB/cpu-s',
        baseline: TOTAL / MiB / median(cpu.baseline),
        baselineName: 'raw streamed PUT to disk',
        ratio: cpuRatio.median,
        range: { min: cpuRatio.min, max: cpuRatio.max, rounds: cpuRatio.rounds },
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
