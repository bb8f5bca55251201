// B1: release latency of a small app until the first 200 from the NEW release through the ingress,
// against the minimal way to ship the same app in the same run: `tar czf` + spawn `node` + first 200.
// Each row is interleaved rounds of ours and the baseline (order alternating), reported as the
// median of the per-round ratios with their min–max. The control plane runs from dist/ (npm run
// build), as users run it. Rows:
// - in-process: pack + upload from this process (no CLI start, no build), release transaction
//   (snapshot, migrations, start, health gate, activate); target <= 1.5x;
// - `svc deploy` as a user runs it: the real CLI (bin/svc.js, the built bundle) spawned in the app
//   directory — CLI start, build.command (`svc build src dist`), pack, upload, release, the CLI's
//   report — then the first 200; target <= 3x;
// - the same with `svc deploy --no-build`; target <= 3x.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { uploadArtifact } from '../../cli/upload-artifact.js';
import { packArtifact } from '../../src/artifacts/index.js';
import { command } from '../../src/core/command.js';
import { execChecked } from '../../src/core/exec.js';
import { defaultHttpClient } from '../../src/core/http/http-client.js';
import { bootstrapAccount } from '../support/account.js';
import { freePort } from '../support/free-port.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import type { BenchResult } from './bench-types.js';
import { interleave, median, pairedRatios, roundsFrom, type Paired } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B1_ROUNDS, 7);
const POLL_MS = 5;
const FIRST_200_TIMEOUT_MS = 20_000;
const SLUG = 'bench-b1';
// The control plane as a user runs it: the compiled one (from sources, every worker thread it starts
// for a snapshot would first load tsx and compile TypeScript).
const PLATFORM_ENTRY = join('dist', 'src', 'platform-main.js');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `url` (optionally with a Host header) until it answers 200 and `accept(body)` holds. */
async function first200(url: string, host: string | undefined, accept: (body: string) => boolean): Promise<void> {
  const deadline = performance.now() + FIRST_200_TIMEOUT_MS;
  while (performance.now() < deadline) {
    try {
      const response = await request(url, { headers: host ? { host } : {} });
      const body = await response.body.text();
      if (response.statusCode === 200 && accept(body)) return;
    } catch {
      // not listening yet
    }
    await sleep(POLL_MS);
  }
  throw new Error(`no 200 from ${url} within ${FIRST_200_TIMEOUT_MS} ms`);
}

// The app: the healthy fixture with dist/ prepared by hand (svc build of one .mjs file is a copy).
async function prepareApp(root: string): Promise<string> {
  const app = join(root, 'app');
  await cp(join(repoRoot, 'fixtures', 'apps', 'healthy'), app, { recursive: true });
  await cp(join(app, 'src', 'server.mjs'), join(app, 'dist', 'server.mjs'), { recursive: true });
  return app;
}

/** A different artifact every run, as a real deploy would be (in src/ for a build, in dist/ without). */
async function markRun(app: string, run: string): Promise<void> {
  await writeFile(join(app, 'src', 'build-id.txt'), `run ${run}\n`);
  await writeFile(join(app, 'dist', 'build-id.txt'), `run ${run}\n`);
}

async function baselineOnce(app: string, work: string, run: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  await execChecked(command('tar', ['czf', join(work, `app-${run}.tgz`), '-C', app, 'dist', 'migrations']));
  const child = spawn(process.execPath, [join(app, 'dist', 'server.mjs')], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  try {
    await first200(`http://127.0.0.1:${port}/`, undefined, () => true);
    return performance.now() - started;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

interface Target {
  platform: StartedPlatform;
  token: string;
  projectId: string;
  app: string;
}

const throughIngress = (target: Target, releaseId: string): Promise<void> =>
  first200(`${target.platform.url}/`, `${SLUG}.localhost:${target.platform.port}`, (text) => text.includes(releaseId));

async function inProcessOnce(target: Target, run: string): Promise<number> {
  await markRun(target.app, run);
  const started = performance.now();
  const packed = await packArtifact(target.app);
  const { body } = await uploadArtifact({
    server: target.platform.url,
    token: target.token,
    projectId: target.projectId,
    bytes: packed.bytes,
    digest: packed.digest,
    idempotencyKey: `bench-b1-${process.pid}-${run}`,
    http: defaultHttpClient,
    timeoutMs: 60_000,
  });
  // The upload answers once the candidate exists (wait=false); the first 200 from the new release ends the round.
  if (body.release.status === 'failed') throw new Error(`release ${body.release.id} failed: ${JSON.stringify(body.release.failure)}`);
  await throughIngress(target, body.release.id);
  const elapsed = performance.now() - started;
  // Not timed: the transaction ends (and frees the project lock) just after the new release answers.
  await releaseSettled(target, body.release.id);
  return elapsed;
}

async function releaseSettled(target: Target, releaseId: string): Promise<void> {
  const url = `${target.platform.url}/api/projects/${target.projectId}/releases/${releaseId}`;
  const deadline = performance.now() + FIRST_200_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const response = await request(url, { headers: { authorization: `Bearer ${target.token}` } });
    const { release } = (await response.body.json()) as { release: { status: string } };
    if (release.status === 'active') return;
    if (release.status !== 'candidate') throw new Error(`release ${releaseId} ended ${release.status}`);
    await sleep(POLL_MS);
  }
  throw new Error(`release ${releaseId} still running after ${FIRST_200_TIMEOUT_MS} ms`);
}

/** `svc deploy --json` as a user runs it (bin/svc.js in the app directory); resolves with its result line (the last of its JSON lines). */
function runDeploy(target: Target, home: string, args: string[]): Promise<{ release: { id: string; status: string } }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'svc.js'), 'deploy', '--json', ...args], {
      cwd: target.app,
      env: { ...process.env, HOME: home, SVC_SERVER: target.platform.url, SVC_TOKEN: target.token, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`svc deploy exited ${code}: ${out}${err}`));
      else resolve(finalJson(out) as { release: { id: string; status: string } });
    });
  });
}

async function cliOnce(target: Target, home: string, args: string[], run: string): Promise<number> {
  await markRun(target.app, run);
  const started = performance.now();
  const result = await runDeploy(target, home, args);
  if (result.release.status !== 'active') throw new Error(`release ${result.release.id} is ${result.release.status}`);
  await throughIngress(target, result.release.id);
  return performance.now() - started;
}

function row(name: string, paired: Paired, target: number): BenchResult {
  const ratio = pairedRatios(paired);
  process.stderr.write(
    `  B1 ${name}\n    svc (ms): ${paired.ours.map((t) => t.toFixed(0)).join(' ')}\n    baseline (ms): ${paired.baseline.map((t) => t.toFixed(0)).join(' ')}\n`,
  );
  return {
    id: 'B1',
    name,
    value: median(paired.ours),
    unit: 'ms',
    baseline: median(paired.baseline),
    baselineName: 'tar czf + spawn + first 200',
    ratio: ratio.median,
    range: ratio,
    target: `<= ${target}x`,
    pass: ratio.median <= target,
  };
}

/** Run B1 and return its rows. */
export default async function b1(): Promise<BenchResult[]> {
  for (const built of [join('dist', 'cli-bundle', 'main.js'), PLATFORM_ENTRY])
    if (!existsSync(join(repoRoot, built))) throw new Error(`B1 runs the built CLI and control plane (${built}): run \`npm run build\` first`);
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b1-'));
  const platform = await startPlatform({ entry: PLATFORM_ENTRY, env: { SVC_PROJECT_MAX_RELEASES: String(3 * ROUNDS + 20) } });
  try {
    const app = await prepareApp(work);
    const home = join(work, 'home');
    const account = await bootstrapAccount(platform.url);
    const target: Target = { platform, token: account.accessToken, projectId: '', app };
    const base = (tag: string) => (round: number) => baselineOnce(app, work, `${tag}-${round}`);
    // Warm-ups: the first run of each kind reads files from disk and compiles. The first `svc deploy`
    // creates the project and links the app directory to it (.svc/project.json), as for a user.
    await baselineOnce(app, work, 'warm');
    await cliOnce(target, home, ['--slug', SLUG, '--name', 'bench b1'], 'warm-cli');
    target.projectId = (JSON.parse(await readFile(join(app, '.svc', 'project.json'), 'utf8')) as { projectId: string }).projectId;
    await inProcessOnce(target, 'warm-in-process');
    const inProcess = await interleave(ROUNDS, (round) => inProcessOnce(target, `in-process-${round}`), base('a'));
    const cli = await interleave(ROUNDS, (round) => cliOnce(target, home, [], `cli-${round}`), base('b'));
    const noBuild = await interleave(ROUNDS, (round) => cliOnce(target, home, ['--no-build'], `cli-no-build-${round}`), base('c'));
    return [
      row('in-process pack + upload → first 200 from the new release, small app (time, value/baseline)', inProcess, 1.5),
      row('`svc deploy` as a user runs it (CLI spawned: start, build, pack, upload, release) → first 200 (time, value/baseline)', cli, 3),
      row('`svc deploy --no-build` as a user runs it → first 200 (time, value/baseline)', noBuild, 3),
    ];
  } finally {
    await platform.stop();
    await rm(work, { recursive: true, force: true });
  }
}
