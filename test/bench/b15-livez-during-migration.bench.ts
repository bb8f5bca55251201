// B15: the control plane keeps answering while a deploy migrates. /livez p99 (a probe every 10 ms from
// another process) during a deploy whose migration computes for about a second, against /livez p99 of the
// same idle control plane, in interleaved rounds. Target: p99 under 50 ms during the migration.
// Not covered here (yet): a 100 MB upload and a decompression bomb at the same time.
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { packFixture, removeDataDir, startPlane } from '../releases/release-support.js';
import type { BenchResult } from './bench-types.js';

const ROUNDS = Math.max(5, Number(process.env.SVC_B15_ROUNDS ?? 5));
const TARGET_P99_MS = 50;
const HEAVY = (n: number) => `CREATE TABLE heavy_${n} AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000000) SELECT sum(x) AS s FROM c;\n`;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const median = (values: number[]): number => percentile(values, 50);

// The prober runs in its own process (the control plane's event loop is what is measured, so the client
// must not share it) and sends one /livez every 10 ms whether or not earlier ones answered (open loop:
// a stalled loop delays every probe sent meanwhile, not just one).
const PROBER = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const latencies = [];
let pending = 0, stopping = false;
const timer = setInterval(() => {
  const began = performance.now();
  pending++;
  http.get(process.argv[1] + '/livez', { agent }, (res) => { res.resume(); res.on('end', () => { latencies.push(performance.now() - began); pending--; finish(); }); }).on('error', () => { latencies.push(60000); pending--; finish(); });
}, 10);
function finish() { if (stopping && pending === 0) { process.stdout.write(JSON.stringify(latencies)); process.exit(0); } }
process.stdin.on('end', () => { stopping = true; clearInterval(timer); finish(); });
process.stdin.resume();
`;

/** Probe /livez from a separate process until `until` resolves; returns each latency in ms. */
async function probeWhile(origin: string, until: Promise<unknown>): Promise<number[]> {
  const child = spawn(process.execPath, ['-e', PROBER, origin], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until.catch(() => undefined);
  child.stdin.end();
  await exited;
  return JSON.parse(out) as number[];
}

export default async function b15(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-b15-'));
  const plane = await startPlane();
  try {
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
    const first = await plane.upload(await packFixture('healthy', work));
    if (first.json().release?.status !== 'active') throw new Error(`B15: first deploy failed: ${first.body}`);
    const idleP99: number[] = [];
    const busyP99: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const artifact = await packFixture('healthy', work, async (dir) => {
        for (let n = 1; n <= round; n++) await writeFile(join(dir, 'migrations', `${String(n + 1).padStart(4, '0')}_heavy_${n}.sql`), HEAVY(n));
      });
      const idle = await probeWhile(origin, new Promise((r) => setTimeout(r, 1_500)));
      const deploy = plane.upload(artifact);
      const busy = await probeWhile(origin, deploy);
      const result = await deploy;
      if (result.json().release?.status !== 'active') throw new Error(`B15: round ${round} deploy failed: ${result.body}`);
      idleP99.push(percentile(idle, 99));
      busyP99.push(percentile(busy, 99));
    }
    const busy = median(busyP99);
    const idle = median(idleP99);
    return [
      {
        id: 'B15',
        name: `/livez p99 during a deploy whose migration computes ~1 s ÷ idle /livez p99, median of ${ROUNDS} interleaved rounds (during: ${Math.min(...busyP99).toFixed(1)}–${Math.max(...busyP99).toFixed(1)} ms; lower is better)`,
        value: Number(busy.toFixed(1)),
        unit: 'ms',
        baseline: Number(idle.toFixed(1)),
        baselineName: 'idle control plane',
        ratio: Number((busy / idle).toFixed(2)),
        target: `p99 < ${TARGET_P99_MS} ms`,
        pass: busy < TARGET_P99_MS,
      },
    ];
  } finally {
    await plane.close();
    await removeDataDir(plane.dataDir);
    await removeDataDir(work);
  }
}
