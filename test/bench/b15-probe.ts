// What the B15 rows share: /livez probed from another process while something runs, percentiles, and
// the row that compares p99 during the work with p99 of the same idle control plane.
import { spawn } from 'node:child_process';
import type { BenchResult } from './bench-types.js';
import { median, percentile } from './rounds.js';

export const TARGET_P99_MS = 50;

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

/** Probe /livez from a separate process until `until` settles; returns each latency in ms. */
export async function probeWhile(origin: string, until: Promise<unknown>): Promise<number[]> {
  const child = spawn(process.execPath, ['-e', PROBER, origin], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until.catch(() => undefined);
  child.stdin.end();
  await exited;
  return JSON.parse(out) as number[];
}

/** p99 of an idle stretch of `ms`, the baseline measured right before each busy stretch. */
export async function idleP99(origin: string, ms: number): Promise<number> {
  return percentile(await probeWhile(origin, new Promise((resolve) => setTimeout(resolve, ms))), 99);
}

/** One B15 row: median p99 during the work against the median idle p99 of the same rounds. */
export function livezRow(id: string, what: string, busyP99: number[], idleP99s: number[], extra = ''): BenchResult {
  const busy = median(busyP99);
  const idle = median(idleP99s);
  const ratios = busyP99.map((b, i) => b / idleP99s[i]!);
  const range = (xs: number[], digits: number): string => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
  return {
    id,
    name: `/livez p99 during ${what} ÷ idle /livez p99, median of ${busyP99.length} interleaved rounds (during: ${range(busyP99, 1)} ms; ratio per round ${range(ratios, 2)}x${extra}; lower is better)`,
    value: Number(busy.toFixed(1)),
    unit: 'ms',
    baseline: Number(idle.toFixed(1)),
    baselineName: 'idle control plane',
    ratio: Number((busy / idle).toFixed(2)),
    range: { min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length },
    target: `p99 < ${TARGET_P99_MS} ms`,
    pass: busy < TARGET_P99_MS,
  };
}
