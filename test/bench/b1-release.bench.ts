// B1: release latency of a small app — pack + upload + release transaction (snapshot, migrations,
// start, health gate, activate) until the first 200 from the NEW release through the ingress —
// against the minimal way to ship the same app in the same run: `tar czf` + spawn `node` + first 200.
// Median of 10 alternating runs after one warm-up each; target <= 1.5x.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { uploadArtifact } from '../../cli/upload-artifact.js';
import { packArtifact } from '../../src/artifacts/index.js';
import { command } from '../../src/core/command.js';
import { execChecked } from '../../src/core/exec.js';
import { bootstrapAccount } from '../support/account.js';
import { freePort } from '../support/free-port.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import type { BenchResult } from './bench-types.js';
import { defaultHttpClient } from '../../src/core/http/http-client.js';

const RUNS = 10;
const POLL_MS = 5;
const FIRST_200_TIMEOUT_MS = 20_000;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
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

async function baselineOnce(app: string, work: string, run: number): Promise<number> {
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

async function svcOnce(platform: StartedPlatform, token: string, projectId: string, slug: string, app: string, run: number): Promise<number> {
  // A different artifact every run, as a real deploy would be.
  await writeFile(join(app, 'dist', 'build-id.txt'), `run ${run}\n`);
  const started = performance.now();
  const packed = await packArtifact(app);
  const { body } = await uploadArtifact({
    server: platform.url,
    token,
    projectId,
    bytes: packed.bytes,
    digest: packed.digest,
    idempotencyKey: `bench-b1-${process.pid}-${run}`,
    http: defaultHttpClient,
    timeoutMs: 60_000,
  });
  if (body.release.status !== 'active') throw new Error(`release ${body.release.id} is ${body.release.status}: ${JSON.stringify(body.release.failure)}`);
  await first200(`${platform.url}/`, `${slug}.localhost:${platform.port}`, (text) => text.includes(body.release.id));
  return performance.now() - started;
}

/** Run B1 and return its row. */
export default async function b1(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b1-'));
  const platform = await startPlatform({ env: { SVC_PROJECT_MAX_RELEASES: String(RUNS + 10) } });
  try {
    const app = await prepareApp(work);
    const account = await bootstrapAccount(platform.url);
    const slug = 'bench-b1';
    const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'bench b1', slug });
    await baselineOnce(app, work, -1);
    await svcOnce(platform, account.accessToken, project.id, slug, app, -1);
    const svcTimes: number[] = [];
    const baseTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      baseTimes.push(await baselineOnce(app, work, run));
      svcTimes.push(await svcOnce(platform, account.accessToken, project.id, slug, app, run));
    }
    const value = median(svcTimes);
    const baseline = median(baseTimes);
    process.stderr.write(
      `  B1 svc runs (ms): ${svcTimes.map((t) => t.toFixed(0)).join(' ')}\n  B1 baseline runs (ms): ${baseTimes.map((t) => t.toFixed(0)).join(' ')}\n`,
    );
    return [
      {
        id: 'B1',
        name: 'upload → first 200 from the new release, small app (time, value/baseline)',
        value,
        unit: 'ms',
        baseline,
        baselineName: 'tar czf + spawn + first 200',
        ratio: value / baseline,
        target: '<= 1.5x',
        pass: value / baseline <= 1.5,
      },
    ];
  } finally {
    await platform.stop();
    await rm(work, { recursive: true, force: true });
  }
}
