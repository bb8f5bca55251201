// B4: authenticated `GET /api/projects` on the real control plane (child process) vs a bare
// node:http handler returning the same JSON bytes, both loaded by autocannon in its own process.
// Five interleaved rounds (order alternating) after a warm-up; the ratio is the median of the per-round
// ratios, which shrugs off a round disturbed by other load on the host. Target: svc >= 80 % of bare.
// Informational rows: server CPU per request, and the floor of the same server answering /livez.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { BenchResult } from './bench-types.js';
import { autocannon, type CannonSummary } from './autocannon.js';
import { bootstrapAccount } from '../support/account.js';
import { startPlatform } from '../support/start-platform.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.SVC_B4_SECONDS ?? 5);
// Interleaved rounds so load from other processes on the host hits both sides alike.
const ROUNDS = Number(process.env.SVC_B4_ROUNDS ?? 5);
// The informational Fastify floor (/livez) gets fewer, shorter rounds.
const FLOOR_ROUNDS = 3;
const FLOOR_SECONDS = 3;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of this process (where the bare server runs). */
function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** A bare node:http server answering every request with `body` as JSON. */
async function startBare(body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/api/projects`, server };
}

/** B4 benchmark entry (see test/bench/run.ts). */
export default async function b4(): Promise<BenchResult[]> {
  const platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn' } });
  let bare: Awaited<ReturnType<typeof startBare>> | undefined;
  try {
    const account = await bootstrapAccount(platform.url);
    for (const name of ['Bench One', 'Bench Two', 'Bench Three']) await account.api('POST', '/api/projects', { name });
    const auth = { authorization: `Bearer ${account.accessToken}` };
    const target = `${platform.url}/api/projects`;
    const sample = await fetch(target, { headers: auth });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`GET /api/projects answered ${sample.status}: ${body}`);
    bare = await startBare(body);
    const bareUrl = bare.url;

    // Warm both (JIT, prepared statements, connection pools) before measuring.
    await autocannon(target, auth, 3, CONNECTIONS);
    await autocannon(bareUrl, auth, 2, CONNECTIONS);
    const pid = platform.child.pid as number;
    // CPU time per request is far less sensitive to other load on the host than req/s.
    interface Side {
      runs: CannonSummary[];
      cpu: number;
    }
    const measure = async (url: string, side: Side, cpuSeconds: () => number, seconds: number): Promise<void> => {
      const before = cpuSeconds();
      side.runs.push(await autocannon(url, auth, seconds, CONNECTIONS));
      side.cpu += cpuSeconds() - before;
    };
    const paired = async (svcUrl: string, rounds: number, seconds: number): Promise<{ svc: Side; bare: Side }> => {
      const svc: Side = { runs: [], cpu: 0 };
      const bareSide: Side = { runs: [], cpu: 0 };
      for (let round = 0; round < rounds; round++) {
        // Alternate which side goes first so a drift in host load does not favour one side.
        const order = round % 2 === 0 ? [true, false] : [false, true];
        for (const isSvc of order) {
          if (isSvc) await measure(svcUrl, svc, () => processCpuSeconds(pid), seconds);
          else await measure(bareUrl, bareSide, ownCpuSeconds, seconds);
        }
      }
      return { svc, bare: bareSide };
    };
    const main = await paired(target, ROUNDS, SECONDS);
    const bad = main.svc.runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    if (bad > 0) throw new Error(`B4: ${bad} non-2xx responses or errors from the control plane (auth or rate limit?)`);
    // Informational floor: the same Fastify server answering /livez (no auth, no database, tiny JSON).
    const floor = await paired(`${platform.url}/livez`, FLOOR_ROUNDS, FLOOR_SECONDS);
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    const rps = (side: Side): number => median(side.runs.map((r) => r.requests.average));
    const pairedRatio = (m: { svc: Side; bare: Side }): number => median(m.svc.runs.map((r, i) => r.requests.average / m.bare.runs[i]!.requests.average));
    const cpuPerRequest = (side: Side): number => (side.cpu * 1e6) / side.runs.reduce((n, r) => n + r.requests.total, 0);
    const svcRps = rps(main.svc);
    const bareRps = rps(main.bare);
    const ratio = pairedRatio(main);
    const p99 = Math.max(...main.svc.runs.map((r) => r.latency.p99));
    const svcUs = cpuPerRequest(main.svc);
    const bareUs = cpuPerRequest(main.bare);
    const floorUs = cpuPerRequest(floor.svc);
    const floorBareUs = cpuPerRequest(floor.bare);
    return [
      {
        id: 'B4',
        name: `authenticated GET /api/projects req/s (svc ÷ bare, median of ${ROUNDS} paired ${SECONDS}s rounds, ${CONNECTIONS} conns, svc p99 ${p99} ms)`,
        value: Math.round(svcRps),
        unit: 'req/s',
        baseline: Math.round(bareRps),
        baselineName: 'bare node:http, same JSON',
        ratio: Number(ratio.toFixed(3)),
        target: '>= 0.8',
        pass: ratio >= 0.8,
      },
      {
        id: 'B4',
        name: 'server CPU per authenticated GET /api/projects (svc ÷ bare, lower is better; informational)',
        value: Math.round(svcUs),
        unit: 'µs CPU/req',
        baseline: Math.round(bareUs),
        baselineName: 'bare node:http, same JSON',
        ratio: Number((svcUs / bareUs).toFixed(2)),
      },
      {
        id: 'B4',
        name: `floor: unauthenticated GET /livez on the same svc server (no auth, no DB) req/s ÷ bare (informational; median of ${FLOOR_ROUNDS}×${FLOOR_SECONDS}s)`,
        value: Math.round(rps(floor.svc)),
        unit: 'req/s',
        baseline: Math.round(rps(floor.bare)),
        baselineName: 'bare node:http, /api/projects JSON',
        ratio: Number(pairedRatio(floor).toFixed(3)),
      },
      {
        id: 'B4',
        name: 'floor: server CPU per GET /livez on the same svc server (informational)',
        value: Math.round(floorUs),
        unit: 'µs CPU/req',
        baseline: Math.round(floorBareUs),
        baselineName: 'bare node:http, /api/projects JSON',
        ratio: Number((floorUs / floorBareUs).toFixed(2)),
      },
    ];
  } finally {
    if (bare) await new Promise((resolve) => bare?.server.close(resolve));
    await platform.stop();
  }
}
