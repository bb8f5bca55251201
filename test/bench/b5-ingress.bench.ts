// B5: req/s of a small app response through the svc ingress vs the same app directly, and vs
// nginx (one worker, upstream keep-alive) proxying the same app. The app is a real node process;
// the control plane runs in this process; autocannon and nginx are separate processes. Rounds are
// interleaved so other load on the host hits every side alike. Targets: >= 70 % of direct, >= nginx.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './bench-types.js';
import { autocannon, type CannonSummary } from './autocannon.js';
import { freePort } from '../support/free-port.js';
import { startListeningPlane, startUpstream } from '../ingress/support.js';
import { routeTableCanaryRouting } from '../../src/canary/canary-routing.js';
import { SampleWindow } from '../../src/canary/sample-window.js';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.SVC_B5_SECONDS ?? 5);
const ROUNDS = 2;

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

/** CPU seconds of this process (where the control plane and its ingress run). */
function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** The nginx worker's pid (the master's only child). */
function nginxWorker(masterPid: number | undefined): number | undefined {
  if (masterPid === undefined) return undefined;
  try {
    const children = readFileSync(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** nginx with one worker reverse-proxying to the app with upstream keep-alive; null when nginx is missing. */
async function startNginx(appPort: number): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> } | null> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-b5-nginx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
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
  return { url: `http://127.0.0.1:${port}/bench`, pid: nginxWorker(child.pid), stop };
}

/** B5 benchmark entry (see test/bench/run.ts). */
export default async function b5(): Promise<BenchResult[]> {
  const [plane, app, candidate] = await Promise.all([startListeningPlane({ logLevel: 'warn' }), startUpstream('bench'), startUpstream('bench-canary')]);
  const nginx = await startNginx(app.port);
  try {
    plane.plane.ingress.routes.setProject({ id: 'prj_bench', slug: 'bench' }, { host: '127.0.0.1', port: app.port }, 'rel_bench');
    const host = { host: `bench.localhost:${plane.port}` };
    const direct = `http://127.0.0.1:${app.port}/bench`;
    const ingress = `${plane.url}/bench`;
    // A second project with a 10 % canary split to another app process, samples collected as a canary does.
    plane.plane.ingress.routes.setProject({ id: 'prj_benchcanary', slug: 'benchcanary' }, { host: '127.0.0.1', port: app.port }, 'rel_bench');
    const samples = new SampleWindow();
    samples.begin(
      'rel_candidate',
      routeTableCanaryRouting(plane.plane.ingress.routes).split('prj_benchcanary', { host: '127.0.0.1', port: candidate.port, releaseId: 'rel_candidate' }, 10),
    );
    const stopSampling = plane.plane.ingress.onRequestComplete((record) => void (record.projectId === 'prj_benchcanary' && samples.offer(record)));
    const canaryHost = { host: `benchcanary.localhost:${plane.port}` };
    await autocannon(direct, {}, 2, CONNECTIONS);
    await autocannon(ingress, host, 3, CONNECTIONS);
    await autocannon(ingress, canaryHost, 2, CONNECTIONS);
    if (nginx) await autocannon(nginx.url, {}, 2, CONNECTIONS);
    const runs = { direct: [] as CannonSummary[], ingress: [] as CannonSummary[], nginx: [] as CannonSummary[], canary: [] as CannonSummary[] };
    // CPU seconds spent by each proxy and by the app when hit directly (less sensitive to host load than req/s).
    const cpu = { ingress: 0, nginx: 0, app: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      let before = ownCpuSeconds();
      runs.ingress.push(await autocannon(ingress, host, SECONDS, CONNECTIONS));
      cpu.ingress += ownCpuSeconds() - before;
      runs.canary.push(await autocannon(ingress, canaryHost, SECONDS, CONNECTIONS));
      before = processCpuSeconds(app.child.pid);
      runs.direct.push(await autocannon(direct, {}, SECONDS, CONNECTIONS));
      cpu.app += processCpuSeconds(app.child.pid) - before;
      if (nginx) {
        before = processCpuSeconds(nginx.pid);
        runs.nginx.push(await autocannon(nginx.url, {}, SECONDS, CONNECTIONS));
        cpu.nginx += processCpuSeconds(nginx.pid) - before;
      }
    }
    const total = (list: CannonSummary[]) => list.reduce((n, r) => n + r.requests.total, 0);
    const perRequestUs = (seconds: number, list: CannonSummary[]) => Math.round((seconds * 1e6) / Math.max(1, total(list)));
    for (const [side, list] of Object.entries(runs)) {
      const bad = list.reduce((n, r) => n + r.non2xx + r.errors, 0);
      if (bad > 0) throw new Error(`B5: ${bad} non-2xx responses or errors (${side})`);
    }
    const mean = (list: CannonSummary[]) => list.reduce((s, r) => s + r.requests.average, 0) / list.length;
    const ingressRps = mean(runs.ingress);
    const directRps = mean(runs.direct);
    const p99 = Math.max(...runs.ingress.map((r) => r.latency.p99));
    const rows: BenchResult[] = [
      {
        id: 'B5',
        name: `ingress proxy req/s (ingress ÷ direct, ${CONNECTIONS} conns, ${ROUNDS}×${SECONDS}s, ingress p99 ${p99} ms)`,
        value: Math.round(ingressRps),
        unit: 'req/s',
        baseline: Math.round(directRps),
        baselineName: 'same app, direct',
        ratio: Number((ingressRps / directRps).toFixed(3)),
        target: '>= 0.7',
        pass: ingressRps / directRps >= 0.7,
      },
    ];
    if (nginx) {
      const nginxRps = mean(runs.nginx);
      rows.push({
        id: 'B5',
        name: 'ingress proxy req/s (ingress ÷ nginx 1 worker, upstream keep-alive)',
        value: Math.round(ingressRps),
        unit: 'req/s',
        baseline: Math.round(nginxRps),
        baselineName: 'nginx reverse proxy',
        ratio: Number((ingressRps / nginxRps).toFixed(3)),
        target: '>= 1.0',
        pass: ingressRps >= nginxRps,
      });
    }
    rows.push({
      id: 'B5',
      name: 'CPU per request: ingress proxy ÷ the app itself (lower is better; informational)',
      value: perRequestUs(cpu.ingress, runs.ingress),
      unit: 'µs CPU/req',
      baseline: perRequestUs(cpu.app, runs.direct),
      baselineName: 'app served directly',
      ratio: Number((perRequestUs(cpu.ingress, runs.ingress) / Math.max(1, perRequestUs(cpu.app, runs.direct))).toFixed(2)),
    });
    const canaryRps = mean(runs.canary);
    stopSampling();
    if (samples.accepted === 0) throw new Error('B5: the canary split sent no requests to the candidate');
    rows.push({
      id: 'B5',
      name: 'ingress req/s with a canary split (10 % to a candidate, samples collected) ÷ plain ingress',
      value: Math.round(canaryRps),
      unit: 'req/s',
      baseline: Math.round(ingressRps),
      baselineName: 'ingress, no canary',
      ratio: Number((canaryRps / ingressRps).toFixed(3)),
      target: '>= 0.9',
      pass: canaryRps / ingressRps >= 0.9,
    });
    if (nginx && nginx.pid !== undefined) {
      rows.push({
        id: 'B5',
        name: 'CPU per request: ingress proxy ÷ nginx worker (lower is better; informational)',
        value: perRequestUs(cpu.ingress, runs.ingress),
        unit: 'µs CPU/req',
        baseline: perRequestUs(cpu.nginx, runs.nginx),
        baselineName: 'nginx reverse proxy',
        ratio: Number((perRequestUs(cpu.ingress, runs.ingress) / Math.max(1, perRequestUs(cpu.nginx, runs.nginx))).toFixed(2)),
      });
    }
    return rows;
  } finally {
    await nginx?.stop();
    await plane.close();
    await app.stop();
    await candidate.stop();
  }
}
