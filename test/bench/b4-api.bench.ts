// B4: authenticated `GET /api/projects` on the real control plane (child process) vs a bare node:http
// handler returning the same JSON bytes, both loaded by autocannon in its own process, in interleaved
// rounds (rounds.ts): each row is the median of the per-round ratios with their min–max.
// The main row goes through the public port as a user does (the svc-ingress process, then the control
// plane on its unix socket). Informational rows split that up: the same request sent straight to the
// control plane's socket (no ingress hop; the baseline then listens on a unix socket too), and the Fastify
// floor, GET /livez on that socket (no auth, no database). CPU per request counts every svc process on
// the path (control plane and ingress) against the bare server's process.
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './bench-types.js';
import { autocannon } from './autocannon.js';
import { interleave, median, pairedRatios, roundsFrom, type RatioSummary } from './rounds.js';
import { bootstrapAccount } from '../support/account.js';
import { startPlatform } from '../support/start-platform.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.SVC_B4_SECONDS ?? 4);
const ROUNDS = roundsFrom(process.env.SVC_B4_ROUNDS);
// The informational rows get shorter rounds (still MIN_ROUNDS of them) to keep the file near two minutes.
const DETAIL_SECONDS = 3;
const FLOOR_SECONDS = 2;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of this process (where the bare servers run). */
function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** Bare node:http servers (TCP and a unix socket) answering each path with its JSON body from `bodies`. */
async function startBare(bodies: Map<string, string>, socketPath: string): Promise<{ url: string; socketPath: string; servers: Server[] }> {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const body = bodies.get(req.url ?? '') ?? '';
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const tcp = createServer(handler);
  const unix = createServer(handler);
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => unix.listen(socketPath, resolve));
  const port = (tcp.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, socketPath, servers: [tcp, unix] };
}

interface Target {
  url: string;
  socketPath?: string;
  /** CPU seconds so far of each process serving this target, by name. */
  cpu: Record<string, () => number>;
}

interface Sample {
  rps: number;
  /** CPU per request of all the target's processes together, and of each. */
  cpuUs: number;
  parts: Record<string, number>;
  bad: number;
  p99: number;
}

async function load(target: Target, headers: Record<string, string>, seconds: number): Promise<Sample> {
  const names = Object.keys(target.cpu);
  const before = names.map((name) => target.cpu[name]!());
  const run = await autocannon(target.url, headers, seconds, CONNECTIONS, target.socketPath);
  const perRequest = (cpuSeconds: number) => (cpuSeconds * 1e6) / Math.max(1, run.requests.total);
  const parts = Object.fromEntries(names.map((name, i) => [name, perRequest(target.cpu[name]!() - before[i]!)]));
  const cpuUs = Object.values(parts).reduce((sum, us) => sum + us, 0);
  return { rps: run.requests.average, cpuUs, parts, bad: run.non2xx + run.errors, p99: run.latency.p99 };
}

interface Comparison {
  throughput: RatioSummary;
  cpu: RatioSummary;
  ours: Sample[];
  baseline: Sample[];
}

/** Interleaved rounds of `ours` and `baseline`; throughput and CPU-per-request ratios per round. */
async function compare(ours: Target, baseline: Target, headers: Record<string, string>, seconds: number): Promise<Comparison> {
  const samples = { ours: [] as Sample[], baseline: [] as Sample[] };
  const take = async (side: 'ours' | 'baseline', target: Target): Promise<number> => {
    const sample = await load(target, headers, seconds);
    samples[side].push(sample);
    return sample.rps;
  };
  const paired = await interleave(
    ROUNDS,
    () => take('ours', ours),
    () => take('baseline', baseline),
  );
  const bad = samples.ours.reduce((n, s) => n + s.bad, 0);
  if (bad > 0) throw new Error(`B4: ${bad} non-2xx responses or errors from svc at ${ours.url} (auth or rate limit?)`);
  return {
    throughput: pairedRatios(paired),
    cpu: pairedRatios({ ours: samples.ours.map((s) => s.cpuUs), baseline: samples.baseline.map((s) => s.cpuUs) }),
    ours: samples.ours,
    baseline: samples.baseline,
  };
}

const range = (r: RatioSummary) => ({ min: Number(r.min.toFixed(3)), max: Number(r.max.toFixed(3)), rounds: r.rounds });
const medianOf = (samples: Sample[], key: 'rps' | 'cpuUs') => median(samples.map((s) => s[key]));
/** "control plane 30.1 + svc-ingress 60.2" (medians), when a target has more than one process. */
function split(samples: Sample[]): string {
  const names = Object.keys(samples[0]!.parts);
  if (names.length < 2) return '';
  return ` (µs: ${names.map((name) => `${name} ${median(samples.map((s) => s.parts[name]!)).toFixed(1)}`).join(' + ')})`;
}

/** Two rows per comparison: req/s (higher is better) and CPU per request (lower is better). */
function rows(c: Comparison, what: string, baselineName: string, target?: string): BenchResult[] {
  return [
    {
      id: 'B4',
      name: `${what} req/s (svc ÷ bare, ${CONNECTIONS} conns, svc p99 ≤ ${Math.max(...c.ours.map((s) => s.p99))} ms)`,
      value: Math.round(medianOf(c.ours, 'rps')),
      unit: 'req/s',
      baseline: Math.round(medianOf(c.baseline, 'rps')),
      baselineName,
      ratio: Number(c.throughput.median.toFixed(3)),
      range: range(c.throughput),
      ...(target ? { target, pass: c.throughput.median >= 0.8 } : {}),
    },
    {
      id: 'B4',
      name: `${what} server CPU per request${split(c.ours)} (svc ÷ bare, lower is better; informational)`,
      value: Number(medianOf(c.ours, 'cpuUs').toFixed(1)),
      unit: 'µs CPU/req',
      baseline: Number(medianOf(c.baseline, 'cpuUs').toFixed(1)),
      baselineName,
      ratio: Number(c.cpu.median.toFixed(2)),
      range: range(c.cpu),
    },
  ];
}

/** B4 benchmark entry (see test/bench/run.ts). */
export default async function b4(): Promise<BenchResult[]> {
  const platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn' } });
  const bareDir = await mkdtemp(join(tmpdir(), 'svc-b4-'));
  let bare: Awaited<ReturnType<typeof startBare>> | undefined;
  try {
    const account = await bootstrapAccount(platform.url);
    for (const name of ['Bench One', 'Bench Two', 'Bench Three']) await account.api('POST', '/api/projects', { name });
    const auth = { authorization: `Bearer ${account.accessToken}` };
    const bodies = new Map<string, string>();
    for (const path of ['/api/projects', '/livez']) {
      const sample = await fetch(`${platform.url}${path}`, { headers: auth });
      const body = await sample.text();
      if (sample.status !== 200) throw new Error(`GET ${path} answered ${sample.status}: ${body}`);
      bodies.set(path, body);
    }
    bare = await startBare(bodies, join(bareDir, 'bare.sock'));
    const controlPid = platform.child.pid as number;
    const ingressPid = platform.ingressPid;
    const controlSocket = join(platform.dataDir, 'run', 'control.sock');
    const controlCpu = { 'control plane': () => processCpuSeconds(controlPid) };
    const svcCpu = ingressPid === null ? controlCpu : { ...controlCpu, 'svc-ingress': () => processCpuSeconds(ingressPid) };
    const bareCpu = { bare: ownCpuSeconds };
    const svcPublic: Target = { url: `${platform.url}/api/projects`, cpu: svcCpu };
    const barePublic: Target = { url: `${bare.url}/api/projects`, cpu: bareCpu };
    const svcDirect: Target = { url: 'http://localhost/api/projects', socketPath: controlSocket, cpu: controlCpu };
    const bareDirect: Target = { url: 'http://localhost/api/projects', socketPath: bare.socketPath, cpu: bareCpu };
    const svcFloor: Target = { ...svcDirect, url: 'http://localhost/livez' };
    const bareFloor: Target = { ...bareDirect, url: 'http://localhost/livez' };

    // Warm both (JIT, prepared statements, connection pools) before measuring.
    await load(svcPublic, auth, 3);
    await load(svcDirect, auth, 1);
    await load(barePublic, auth, 2);
    const main = await compare(svcPublic, barePublic, auth, SECONDS);
    const direct = await compare(svcDirect, bareDirect, auth, DETAIL_SECONDS);
    const floor = await compare(svcFloor, bareFloor, {}, FLOOR_SECONDS);
    return [
      ...rows(
        main,
        `authenticated GET /api/projects through the public port (svc-ingress, then the control plane), ${ROUNDS}×${SECONDS}s`,
        'bare node:http, same JSON',
        '>= 0.8',
      ),
      ...rows(
        direct,
        `same request straight to the control plane's unix socket (no ingress hop; informational), ${ROUNDS}×${DETAIL_SECONDS}s`,
        'bare node:http on a unix socket, same JSON',
      ),
      ...rows(
        floor,
        `Fastify floor: GET /livez on the control plane's socket (no auth, no DB; informational), ${ROUNDS}×${FLOOR_SECONDS}s`,
        'bare node:http on a unix socket, same JSON',
      ),
    ];
  } finally {
    if (bare) for (const server of bare.servers) await new Promise((resolve) => server.close(resolve));
    await rm(bareDir, { recursive: true, force: true });
    await platform.stop();
  }
}
