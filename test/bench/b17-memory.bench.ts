// B17: control-plane memory, as a user runs it (`node bin/svc-platform.js`, compiled dist/, its own
// ingress process) on the same Node as the baseline, a bare node:http server. Three rows:
//  (a) idle RSS of the control plane vs the bare server, each read from /proc SETTLE_MS after it
//      answers (target: at most 20 MiB above bare);
//  (b) RSS of a control plane serving APPS idle apps (the healthy fixture, sandboxed as configured),
//      read a minute after the last upload (the upload decoder thread has stopped by then), vs the
//      fresh idle control plane of the same round;
//  (c) per-app overhead beyond the app's own process: the control plane's RSS growth per app from one
//      app to APPS apps, plus the PSS of every helper process of the apps (sandbox init, network
//      forward, launcher: everything in the plane's tree but the ingress and the apps' node processes)
//      per app, vs the app's own node process (PSS).
// Each round measures (a) with its two sides in alternating order, then samples the loaded plane for
// (b) and (c). The apps are deployed once, before the rounds (~1 s an app on two cores), so the bench
// takes about three minutes with 30 apps (SVC_B17_APPS, SVC_B17_ROUNDS, SVC_B17_SETTLE_MS). Needs a
// built dist/ (`npx tsc -p tsconfig.build.json`): the bench says so when dist/ is older than src/.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packFixture, type Artifact } from '../releases/release-support.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { freePort } from '../support/free-port.js';
import { alive } from '../support/process-alive.js';
import { postRelease } from '../support/post-release.js';
import { repoRoot } from '../support/repo-root.js';
import type { BenchResult } from './bench-types.js';
import { median, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B17_ROUNDS);
const APPS = Number(process.env.SVC_B17_APPS ?? 30);
/** How long a process has been serving before its memory is read. */
const SETTLE_MS = Number(process.env.SVC_B17_SETTLE_MS ?? 5_000);
const TARGET_ABOVE_BARE_MIB = 20;
/** The upload decoder thread stops after a minute without uploads; the loaded plane is read after that. */
const DECODER_IDLE_STOP_MS = 60_000;
const KiB = 1024;
const MiB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A field of /proc/<pid>/status or smaps_rollup in bytes (0 when the process is gone). */
function procBytes(pid: number, file: 'status' | 'smaps_rollup', field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) * KiB : 0;
  } catch {
    return 0;
  }
}
const rssMiB = (pid: number): number => procBytes(pid, 'status', 'VmRSS') / MiB;
const pssMiB = (pid: number): number => procBytes(pid, 'smaps_rollup', 'Pss') / MiB;

/** Every live process with its parent and command name, from /proc. */
function processTable(): Map<number, { ppid: number; comm: string; cmdline: string }> {
  const table = new Map<number, { ppid: number; comm: string; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      table.set(Number(entry), { ppid, comm, cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** `root` and all its descendants. */
function subtree(table: ReturnType<typeof processTable>, root: number): number[] {
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, proc] of table) if (proc.ppid === found[i]) found.push(pid);
  return found;
}

interface RunningPlane {
  child: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

/** `node bin/svc-platform.js` on a free port with a fresh data directory, once /readyz answers 200. */
async function startPlane(): Promise<RunningPlane> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-b17-'));
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'svc-platform.js'), '--listen', `127.0.0.1:${port}`, '--data', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_DATA_DIR: dataDir, SVC_REGISTRATION: 'bootstrap' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors = (errors + chunk).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    const before = processTable();
    const ingress = await readFile(join(dataDir, 'run', 'ingress.json'), 'utf8').then(
      (text) => (JSON.parse(text) as { pid: number }).pid,
      () => null,
    );
    // Everything this plane started (ingress, apps and their sandboxes), killed if SIGINT left any.
    const started = [...(child.pid ? subtree(before, child.pid) : []), ...(ingress ? subtree(before, ingress) : [])];
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`B17: the control plane exited before it was ready:\n${errors}`);
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      async (response) => (await response.arrayBuffer(), response.ok),
      () => false,
    );
    if (ok) return { child, url, port, dataDir, stop };
    await sleep(50);
  }
  await stop();
  throw new Error(`B17: the control plane was not ready within 60 s:\n${errors}`);
}

/** A bare node:http server on the same Node, once it listens. */
async function startBare(): Promise<{ pid: number; stop(): Promise<void> }> {
  const source = "require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', () => console.log('ready'))";
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`B17: the bare server exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function idlePlaneRss(): Promise<number> {
  const plane = await startPlane();
  try {
    await sleep(SETTLE_MS);
    return rssMiB(plane.child.pid!);
  } finally {
    await plane.stop();
  }
}

async function bareRss(): Promise<number> {
  const bare = await startBare();
  try {
    await sleep(SETTLE_MS);
    return rssMiB(bare.pid);
  } finally {
    await bare.stop();
  }
}

/** Deploy projects `from`..`to - 1` of the healthy fixture; resolves once each release is active. */
async function deployApps(plane: RunningPlane, account: TestAccount, artifact: Artifact, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const slug = `b17-app-${i}`;
    const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: slug, slug });
    const response = await postRelease(plane.url, account.accessToken, project.id, artifact, { key: `b17-${process.pid}-${i}`, wait: true });
    const body = (await response.json()) as { release?: { status: string } };
    if (body.release?.status !== 'active') throw new Error(`B17: app ${i} → ${response.status} ${JSON.stringify(body)}`);
  }
}

/**
 * The apps' processes under a control plane: for each app process (node running the release's
 * server), its own PSS; everything else of the plane's tree but the plane and its ingress is a helper.
 */
function appMemory(planePid: number): { apps: number; appPss: number; helperPss: number; helpers: Map<string, number> } {
  const table = processTable();
  const tree = subtree(table, planePid).filter((pid) => pid !== planePid);
  let apps = 0;
  let appPss = 0;
  let helperPss = 0;
  const helpers = new Map<string, number>();
  for (const pid of tree) {
    const proc = table.get(pid)!;
    if (proc.cmdline.includes('ingress-main') || proc.cmdline.includes('svc-ingress')) continue;
    const pss = pssMiB(pid);
    if (proc.comm === 'node' && /server\.mjs/.test(proc.cmdline)) {
      apps++;
      appPss += pss;
    } else {
      helperPss += pss;
      helpers.set(proc.comm, (helpers.get(proc.comm) ?? 0) + pss);
    }
  }
  return { apps, appPss, helperPss, helpers };
}

function fresh(): void {
  const dist = join(repoRoot, 'dist', 'src', 'platform.js');
  const newest = (dir: string): number =>
    Math.max(
      ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
        entry.isDirectory() ? newest(join(dir, entry.name)) : entry.name.endsWith('.ts') ? statSync(join(dir, entry.name)).mtimeMs : 0,
      ),
    );
  if (statSync(dist).mtimeMs < newest(join(repoRoot, 'src')))
    process.stderr.write('  B17: dist/ is older than src/: the control plane runs the last build (npx tsc -p tsconfig.build.json)\n');
}

/** Run B17 and return its rows. */
export default async function b17(): Promise<BenchResult[]> {
  fresh();
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b17-work-'));
  const loaded = await startPlane();
  try {
    const loadedPid = loaded.child.pid!;
    const account = await bootstrapAccount(loaded.url);
    const artifact = await packFixture('healthy', work);
    // The first app pays what any first deploy pays (the decoder thread, deploy code paths, a grown young
    // generation); the control plane's per-app cost is its growth from one app to APPS apps.
    await deployApps(loaded, account, artifact, 0, 1);
    await sleep(SETTLE_MS);
    const oneApp = rssMiB(loadedPid);
    const deployStarted = performance.now();
    await deployApps(loaded, account, artifact, 1, APPS);
    const deploySeconds = (performance.now() - deployStarted) / 1000;
    await sleep(SETTLE_MS);
    // Read in the same state as oneApp (decoder thread still running), before it stops.
    const planePerApp = Math.max(0, rssMiB(loadedPid) - oneApp) / (APPS - 1);
    await sleep(DECODER_IDLE_STOP_MS);

    const idle: number[] = [];
    const bare: number[] = [];
    const withApps: number[] = [];
    const perApp: number[] = [];
    const appOwn: number[] = [];
    let helpers = new Map<string, number>();
    let apps = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // (a) ours and the baseline, alternating which goes first.
      if (round % 2 === 0) {
        idle.push(await idlePlaneRss());
        bare.push(await bareRss());
      } else {
        bare.push(await bareRss());
        idle.push(await idlePlaneRss());
      }
      // (b) and (c): the loaded plane now.
      withApps.push(rssMiB(loadedPid));
      const memory = appMemory(loadedPid);
      if (memory.apps !== APPS) throw new Error(`B17: ${memory.apps} app processes running, expected ${APPS}`);
      apps = memory.apps;
      helpers = memory.helpers;
      perApp.push(planePerApp + memory.helperPss / APPS);
      appOwn.push(memory.appPss / APPS);
    }

    const above = idle.map((value, i) => value - bare[i]!);
    const summary = (values: number[]): string => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
    const helperText = [...helpers].map(([comm, pss]) => `${comm} ${(pss / apps).toFixed(2)}`).join(', ');
    process.stderr.write(
      [
        `  B17 idle control plane RSS (MiB): ${idle.map((v) => v.toFixed(1)).join(' ')}; bare node:http: ${bare.map((v) => v.toFixed(1)).join(' ')}`,
        `  B17 above bare (MiB): ${summary(above)}`,
        `  B17 ${APPS - 1} more apps deployed in ${deploySeconds.toFixed(0)} s; loaded plane with 1 app ${oneApp.toFixed(1)} MiB, growth per further app ${planePerApp.toFixed(2)} MiB; with ${APPS} apps ${withApps.map((v) => v.toFixed(1)).join(' ')}`,
        `  B17 per app: overhead ${perApp.map((v) => v.toFixed(2)).join(' ')} MiB (helpers' PSS per app: ${helperText}); app's own node process PSS ${appOwn.map((v) => v.toFixed(1)).join(' ')} MiB`,
      ].join('\n') + '\n',
    );

    const ratios = (ours: number[], base: number[]) => ours.map((v, i) => v / base[i]!);
    const range = (values: number[]) => ({ min: Math.min(...values), max: Math.max(...values), rounds: values.length });
    const idleRatios = ratios(idle, bare);
    const appsRatios = ratios(withApps, idle);
    const perAppRatios = ratios(perApp, appOwn);
    const aboveMedian = median(above);
    return [
      {
        id: 'B17',
        name: `control-plane idle RSS vs bare node:http (RSS, value/baseline; above bare ${summary(above)} MiB)`,
        value: median(idle),
        unit: 'MiB',
        baseline: median(bare),
        baselineName: 'bare node:http server',
        ratio: median(idleRatios),
        range: range(idleRatios),
        target: `<= ${TARGET_ABOVE_BARE_MIB} MiB above bare`,
        pass: aboveMedian <= TARGET_ABOVE_BARE_MIB,
      },
      {
        id: 'B17',
        name: `control-plane RSS with ${APPS} idle apps vs a fresh idle control plane (RSS, value/baseline)`,
        value: median(withApps),
        unit: 'MiB',
        baseline: median(idle),
        baselineName: 'idle control plane',
        ratio: median(appsRatios),
        range: range(appsRatios),
      },
      {
        id: 'B17',
        name: `per-app overhead beyond the app's own process (plane RSS growth + helper PSS per app, value/baseline)`,
        value: median(perApp),
        unit: 'MiB',
        baseline: median(appOwn),
        baselineName: "the app's node process (PSS)",
        ratio: median(perAppRatios),
        range: range(perAppRatios),
      },
    ];
  } finally {
    await loaded.stop();
    await rm(work, { recursive: true, force: true });
  }
}
