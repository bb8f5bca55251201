// B5: req/s of a small app response through the svc-ingress process (the data plane that owns the
// public port) vs the same app directly, and vs nginx with as many workers as the ingress has,
// proxying the same app with upstream keep-alive. The app, the ingress, nginx and autocannon are
// separate processes; this process plays the control plane (route session, request records). Every
// side gets the same number of load-generator connections. Each round runs every side once, in a
// rotated order, so other load on the host hits every side alike; a row is the median of the
// per-round ratios with their min–max. Targets: >= 70 % of direct, >= nginx.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './bench-types.js';
import { autocannon, type CannonSummary } from './autocannon.js';
import { median, pairedRatios, roundsFrom } from './rounds.js';
import { freePort } from '../support/free-port.js';
import { repoRoot } from '../support/repo-root.js';
import { startUpstream } from '../ingress/support.js';
import { spawnEdgeIngress } from '../ingress/edge/spawn-edge-ingress.js';
import { routeTableCanaryRouting } from '../../src/canary/canary-routing.js';
import { SampleWindow } from '../../src/canary/sample-window.js';
import { createLogger } from '../../src/core/logger.js';
import { edgePaths } from '../../src/ingress/edge/edge-paths.js';
import { followEdgeRoutes } from '../../src/ingress/edge/follow-edge-routes.js';
import { RouteTable, type RequestRecord } from '../../src/ingress/index.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.SVC_B5_SECONDS ?? 3);
const ROUNDS = roundsFrom(process.env.SVC_B5_ROUNDS);
/** Extra node flags for the ingress process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
const INGRESS_NODE_ARGS = (process.env.SVC_B5_INGRESS_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * The built ingress, as `svc-platform` starts it (not the sources through tsx, whose loader adds
 * per-closure work to the hot path); refused when src/ingress changed after the last build.
 */
function builtIngressEntry(): string {
  const override = process.env.SVC_B5_INGRESS_ENTRY;
  if (override) return override;
  const entry = join(repoRoot, 'bin', 'svc-ingress.js');
  const built = statSync(join(repoRoot, 'dist', 'src', 'ingress', 'edge', 'ingress-main.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = join(repoRoot, 'src', 'ingress');
  const newest = Math.max(
    ...readdirSync(sources, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => statSync(join(sources, f)).mtimeMs),
  );
  if (built < newest) throw new Error('B5 measures the built ingress: run `npx tsc -p tsconfig.build.json` (or npm run build) first');
  return entry;
}

/** CPU seconds (user + system) of a process from /proc (Linux; clock ticks of 1/100 s); 0 when unreadable. */
function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The children of a process (nginx's workers are the master's children). */
function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of this process (the control plane's side of the route session: request records). */
function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

interface Nginx {
  url: string;
  /** The worker processes (what does the proxying). */
  workers: number[];
  stop(): Promise<void>;
}

/** nginx with `workers` workers reverse-proxying to the app with upstream keep-alive; null when nginx is missing. */
async function startNginx(appPort: number, workers: number): Promise<Nginx | null> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b5-nginx-'));
  const port = await freePort();
  // What the svc ingress does too: HTTP/1.1 keep-alive to the app, Host passed on, X-Forwarded-* set.
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes ${workers}; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream app { server 127.0.0.1:${appPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $host;
    }
  }
}
`,
  );
  let child: ChildProcess;
  try {
    child = spawn('nginx', ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const failed = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    setTimeout(() => resolve(child.exitCode !== null), 500);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  if (failed) {
    await stop();
    return null;
  }
  return { url: `http://127.0.0.1:${port}/bench`, workers: childPids(child.pid), stop };
}

/** The svc-ingress process on its own data directory, following a route table owned by this process. */
async function startIngress(routes: RouteTable, report: (record: RequestRecord) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b5-ingress-'));
  const { child, port, status } = await spawnEdgeIngress({ dir, holdMs: 3_000, nodeArgs: INGRESS_NODE_ARGS, entry: builtIngressEntry() });
  const follower = followEdgeRoutes({
    socketPath: edgePaths(dir).ingressSocket,
    ingress: { routes, report },
    settings: { baseDomain: 'localhost', platformHosts: ['127.0.0.1', 'localhost'], trustProxy: false },
    logger: createLogger({ level: 'silent' }),
  });
  if (!(await follower.attached(10_000))) {
    follower.close();
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error('B5: the ingress process did not take the route session');
  }
  return {
    port,
    /** The processes that serve requests. */
    pids: [status.pid],
    async stop() {
      follower.close();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The floor of this design: node:http + an undici Pool and nothing else (b5-bare-proxy.mjs). */
async function startBareProxy(appPort: number): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'b5-bare-proxy.mjs')], {
    env: { ...process.env, TARGET: `http://127.0.0.1:${appPort}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`B5: the bare proxy exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/bench`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Side {
  url: string;
  headers: Record<string, string>;
  /** Processes whose CPU this side is charged. */
  pids: number[];
  runs: CannonSummary[];
  /** CPU µs per request of `pids`, per round. */
  cpuPerRequest: number[];
}

function side(url: string, headers: Record<string, string>, pids: number[]): Side {
  return { url, headers, pids, runs: [], cpuPerRequest: [] };
}

async function measure(s: Side, seconds: number): Promise<void> {
  const cpu = () => s.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  const before = cpu();
  const run = await autocannon(s.url, s.headers, seconds, CONNECTIONS);
  const bad = run.non2xx + run.errors;
  if (bad > 0)
    throw new Error(`B5: ${bad} non-2xx responses or errors (${s.url}${s.headers.host ? `, Host ${s.headers.host}` : ''}; pids ${s.pids.join(' ')})`);
  s.runs.push(run);
  s.cpuPerRequest.push(((cpu() - before) * 1e6) / Math.max(1, run.requests.total));
}

const rps = (s: Side) => s.runs.map((r) => r.requests.average);
const round1 = (n: number) => Number(n.toFixed(1));
const round3 = (n: number) => Number(n.toFixed(3));

/** B5 benchmark entry (see test/bench/run.ts). */
export default async function b5(): Promise<BenchResult[]> {
  const routes = new RouteTable();
  const samples = new SampleWindow();
  let recordsCpu = 0;
  let records = 0;
  const stops: (() => Promise<void>)[] = [];
  const started = <T extends { stop(): Promise<void> }>(value: T): T => {
    stops.unshift(() => value.stop());
    return value;
  };
  try {
    const app = started(await startUpstream('bench'));
    const candidate = started(await startUpstream('bench-canary'));
    const ingress = started(
      await startIngress(routes, (record) => {
        records++;
        if (record.projectId === 'prj_benchcanary') samples.offer(record);
      }),
    );
    const workers = ingress.pids.length;
    const nginxStarted = await startNginx(app.port, workers);
    const nginx = nginxStarted && started(nginxStarted);
    const bare = started(await startBareProxy(app.port));
    routes.setProject({ id: 'prj_bench', slug: 'bench' }, { host: '127.0.0.1', port: app.port }, 'rel_bench');
    // A second project with a 10 % canary split to another app process, samples collected as a canary does.
    routes.setProject({ id: 'prj_benchcanary', slug: 'benchcanary' }, { host: '127.0.0.1', port: app.port }, 'rel_bench');
    samples.begin(
      'rel_candidate',
      routeTableCanaryRouting(routes).split('prj_benchcanary', { host: '127.0.0.1', port: candidate.port, releaseId: 'rel_candidate' }, 10),
    );
    const ingressUrl = `http://127.0.0.1:${ingress.port}/bench`;
    const sides = {
      direct: side(`http://127.0.0.1:${app.port}/bench`, {}, [app.child.pid!]),
      ingress: side(ingressUrl, { host: `bench.localhost:${ingress.port}` }, ingress.pids),
      canary: side(ingressUrl, { host: `benchcanary.localhost:${ingress.port}` }, ingress.pids),
      ...(nginx ? { nginx: side(nginx.url, {}, nginx.workers) } : {}),
      bare: side(bare.url, {}, [bare.pid]),
    };
    const order = Object.values(sides);
    for (const s of order) await autocannon(s.url, s.headers, 2, CONNECTIONS); // warm-up (JIT, pools)
    const recordsBefore = records;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < order.length; i++) {
        const s = order[(round + i) % order.length]!;
        const before = ownCpuSeconds();
        await measure(s, SECONDS);
        if (s === sides.ingress || s === sides.canary) recordsCpu += ownCpuSeconds() - before;
      }
    }
    const proxied = [...sides.ingress.runs, ...sides.canary.runs].reduce((n, r) => n + r.requests.total, 0);
    // Records arrive in batches every 100 ms; the last ones may still be on their way.
    for (let waited = 0; records - recordsBefore < proxied && waited < 5_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (records - recordsBefore < proxied) throw new Error(`B5: ${proxied} requests proxied but ${records - recordsBefore} records reached the control plane`);
    if (samples.accepted === 0) throw new Error('B5: the canary split sent no requests to the candidate');

    const p99 = Math.max(...sides.ingress.runs.map((r) => r.latency.p99));
    const vsDirect = pairedRatios({ ours: rps(sides.ingress), baseline: rps(sides.direct) });
    const rows: BenchResult[] = [
      {
        id: 'B5',
        name: `svc-ingress req/s ÷ the app direct (${CONNECTIONS} conns each, ${SECONDS} s rounds, ${workers} ingress worker(s), ingress p99 ${p99} ms)`,
        value: Math.round(median(rps(sides.ingress))),
        unit: 'req/s',
        baseline: Math.round(median(rps(sides.direct))),
        baselineName: 'same app, direct',
        ratio: round3(vsDirect.median),
        range: { min: round3(vsDirect.min), max: round3(vsDirect.max), rounds: vsDirect.rounds },
        target: '>= 0.7',
        pass: vsDirect.median >= 0.7,
      },
    ];
    if (sides.nginx) {
      const vsNginx = pairedRatios({ ours: rps(sides.ingress), baseline: rps(sides.nginx) });
      rows.push({
        id: 'B5',
        name: `svc-ingress req/s ÷ nginx (${workers} worker(s) each, upstream keep-alive)`,
        value: Math.round(median(rps(sides.ingress))),
        unit: 'req/s',
        baseline: Math.round(median(rps(sides.nginx))),
        baselineName: 'nginx reverse proxy',
        ratio: round3(vsNginx.median),
        range: { min: round3(vsNginx.min), max: round3(vsNginx.max), rounds: vsNginx.rounds },
        target: '>= 1.0',
        pass: vsNginx.median >= 1.0,
      });
    }
    if (sides.nginx) {
      // What a reverse proxy can reach on this host at all: the app, the proxy and the load generator share the cores.
      const ceiling = pairedRatios({ ours: rps(sides.nginx), baseline: rps(sides.direct) });
      rows.push({
        id: 'B5',
        name: `nginx req/s ÷ the app direct (${workers} worker(s); the ceiling of a proxy on this host; informational)`,
        value: Math.round(median(rps(sides.nginx))),
        unit: 'req/s',
        baseline: Math.round(median(rps(sides.direct))),
        baselineName: 'same app, direct',
        ratio: round3(ceiling.median),
        range: { min: round3(ceiling.min), max: round3(ceiling.max), rounds: ceiling.rounds },
      });
    }
    const vsCanary = pairedRatios({ ours: rps(sides.canary), baseline: rps(sides.ingress) });
    rows.push({
      id: 'B5',
      name: 'svc-ingress req/s with a canary split (10 % to a candidate, samples collected) ÷ plain ingress',
      value: Math.round(median(rps(sides.canary))),
      unit: 'req/s',
      baseline: Math.round(median(rps(sides.ingress))),
      baselineName: 'ingress, no canary',
      ratio: round3(vsCanary.median),
      range: { min: round3(vsCanary.min), max: round3(vsCanary.max), rounds: vsCanary.rounds },
      target: '>= 0.9',
      pass: vsCanary.median >= 0.9,
    });
    // CPU per request is less sensitive to other load on the host than req/s: it shows the ceiling.
    const cpuRow = (name: string, ours: Side, base: Side, baseName: string): BenchResult => {
      const paired = pairedRatios({ ours: ours.cpuPerRequest, baseline: base.cpuPerRequest });
      return {
        id: 'B5',
        name,
        value: round1(median(ours.cpuPerRequest)),
        unit: 'µs CPU/req',
        baseline: round1(median(base.cpuPerRequest)),
        baselineName: baseName,
        ratio: Number(paired.median.toFixed(2)),
        range: { min: Number(paired.min.toFixed(2)), max: Number(paired.max.toFixed(2)), rounds: paired.rounds },
      };
    };
    rows.push(
      cpuRow('CPU per request: svc-ingress process ÷ the app served directly (lower is better; informational)', sides.ingress, sides.direct, 'the app itself'),
    );
    if (sides.nginx)
      rows.push(cpuRow('CPU per request: svc-ingress process ÷ nginx workers (lower is better; informational)', sides.ingress, sides.nginx, 'nginx workers'));
    rows.push(
      cpuRow(
        'CPU per request: svc-ingress process ÷ a bare Node proxy (node:http + undici Pool, nothing else: the floor of this design; informational)',
        sides.ingress,
        sides.bare,
        'bare Node proxy',
      ),
    );
    rows.push({
      id: 'B5',
      name: 'CPU per request on the control plane side: request records received (informational)',
      value: round1((recordsCpu * 1e6) / Math.max(1, proxied)),
      unit: 'µs CPU/req',
      baseline: round1(median(sides.ingress.cpuPerRequest)),
      baselineName: 'svc-ingress process',
      ratio: Number(((recordsCpu * 1e6) / Math.max(1, proxied) / median(sides.ingress.cpuPerRequest)).toFixed(2)),
    });
    return rows;
  } finally {
    for (const stop of stops) await stop();
  }
}
