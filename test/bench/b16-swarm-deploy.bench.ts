// B16: deploy → first 200 through the ingress under SVC_DRIVER=swarm against the same app under the
// local runner (the default sandbox), interleaved in one run. One control plane per driver, each with
// its own project; every run uploads a new artifact (a code-only change: a blue-green deploy) and
// polls the ingress from the moment the upload starts until the new release answers. The swarm runs
// on a throwaway single-node engine (dockerd in its own network namespace); its base image is built
// once before the runs (SVC_SWARM_IMAGE), as production pins it. No target: the row reports the
// median ratio and its range.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { uploadArtifact } from '../../cli/upload-artifact.js';
import { packArtifact } from '../../src/artifacts/index.js';
import { bootstrapAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { swarmEngineGate } from '../support/swarm-engine.js';
import { startSwarmSetup } from '../e2e/support/swarm-setup.js';
import type { BenchResult } from './bench-types.js';
import { median, roundsFrom } from './rounds.js';
import { defaultHttpClient } from '../../src/core/http/http-client.js';

/** Pairs after one warm-up each: about 23 s per pair on a 2-CPU box (the swarm deploy ~10 s to its first 200, ~16 s until active), so the row fits in ~3 minutes. */
const RUNS = roundsFrom(process.env.SVC_B16_ROUNDS);
const POLL_MS = 5;
const FIRST_200_TIMEOUT_MS = 120_000;
/** The lame-duck window of a replaced task (it runs after the cutover, so it only spaces the runs). */
const SWARM_DRAIN_MS = '2000';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Target {
  name: string;
  platform: StartedPlatform;
  token: string;
  api: <T>(method: string, path: string) => Promise<T>;
  projectId: string;
  slug: string;
  app: string;
  /** The release the ingress serves now. */
  serving: string | null;
}

/** The release id the ingress answers `/` with, or null. */
async function servedRelease(target: Target): Promise<string | null> {
  try {
    const response = await request(`${target.platform.url}/`, { headers: { host: `${target.slug}.localhost:${target.platform.port}` } });
    const text = await response.body.text();
    return response.statusCode === 200 ? ((JSON.parse(text) as { release?: string }).release ?? null) : null;
  } catch {
    return null;
  }
}

/** Upload a new build and time it until the ingress answers from a release other than the one serving before. */
async function deployOnce(target: Target, run: number): Promise<number> {
  await writeFile(join(target.app, 'dist', 'build-id.txt'), `${target.name} run ${run}\n`);
  const packed = await packArtifact(target.app);
  const before = target.serving;
  const started = performance.now();
  const uploading = uploadArtifact({
    server: target.platform.url,
    token: target.token,
    projectId: target.projectId,
    bytes: packed.bytes,
    digest: packed.digest,
    idempotencyKey: `bench-b16-${target.name}-${process.pid}-${run}`,
    http: defaultHttpClient,
    timeoutMs: 180_000,
  });
  let failed: unknown = null;
  uploading.catch((error: unknown) => (failed = error));
  let elapsed: number | null = null;
  while (performance.now() - started < FIRST_200_TIMEOUT_MS && failed === null) {
    const release = await servedRelease(target);
    if (release !== null && release !== before) {
      elapsed = performance.now() - started;
      target.serving = release;
      break;
    }
    await sleep(POLL_MS);
  }
  const { body } = await uploading;
  if (body.release.status !== 'active')
    throw new Error(`${target.name}: release ${body.release.id} is ${body.release.status}: ${JSON.stringify(body.release.failure)}`);
  if (elapsed === null) throw new Error(`${target.name}: no 200 from the new release within ${FIRST_200_TIMEOUT_MS} ms`);
  if (target.serving !== body.release.id) throw new Error(`${target.name}: the ingress answered ${target.serving}, the deploy made ${body.release.id} active`);
  return elapsed;
}

async function prepareTarget(name: string, platform: StartedPlatform, work: string): Promise<Target> {
  const app = join(work, `app-${name}`);
  await cp(join(repoRoot, 'fixtures', 'apps', 'healthy'), app, { recursive: true });
  await cp(join(app, 'src', 'server.mjs'), join(app, 'dist', 'server.mjs'));
  const account = await bootstrapAccount(platform.url);
  const slug = `bench-b16-${name}`;
  const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: `bench b16 ${name}`, slug });
  return { name, platform, token: account.accessToken, api: (method, path) => account.api(method, path), projectId: project.id, slug, app, serving: null };
}

/** Seconds from the first step line of the serving release's deploy to each later one (where the time goes). */
async function stepTimes(target: Target): Promise<string> {
  const { entries } = await target.api<{ entries: { time: string; line: string }[] }>(
    'GET',
    `/api/projects/${target.projectId}/logs?stream=system&limit=50&releaseId=${target.serving}`,
  );
  const steps = entries.filter((e) => e.line.startsWith('deploy: '));
  const t0 = Date.parse(steps[0]?.time ?? '');
  return steps.map((e) => `${e.line.slice('deploy: '.length).split(',')[0]} +${((Date.parse(e.time) - t0) / 1000).toFixed(2)}`).join(', ');
}

/** Run B16 and return its row. */
export default async function b16(): Promise<BenchResult[]> {
  const gate = swarmEngineGate('B16 swarm deploy');
  gate.assertPresent();
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b16-'));
  const swarm = await startSwarmSetup({ drainMs: Number(SWARM_DRAIN_MS) });
  const platforms: StartedPlatform[] = [];
  try {
    process.stderr.write(`  B16 swarm base image built in ${swarm.imageSeconds.toFixed(1)} s (not measured)\n`);
    const maxReleases = { SVC_PROJECT_MAX_RELEASES: String(RUNS + 10) };
    const localPlatform = await startPlatform({ env: maxReleases });
    platforms.push(localPlatform);
    const swarmPlatform = await startPlatform({ env: { ...maxReleases, ...swarm.env }, readyTimeoutMs: 120_000 });
    platforms.push(swarmPlatform);
    const local = await prepareTarget('local', localPlatform, work);
    const onSwarm = await prepareTarget('swarm', swarmPlatform, work);
    // Warm-up: the first deploy of each (project volume, network and service creation on the swarm).
    await deployOnce(local, -1);
    await deployOnce(onSwarm, -1);
    const localTimes: number[] = [];
    const swarmTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Alternate which goes first, so neither always runs right after the other's cleanup.
      const order = run % 2 === 0 ? [local, onSwarm] : [onSwarm, local];
      for (const target of order) (target === local ? localTimes : swarmTimes).push(await deployOnce(target, run));
    }
    process.stderr.write(`  B16 steps of the last deploy: swarm ${await stepTimes(onSwarm)}; local ${await stepTimes(local)}\n`);
    const ratios = swarmTimes.map((t, i) => t / localTimes[i]!);
    const ratio = median(ratios);
    const range = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}x`;
    process.stderr.write(
      `  B16 swarm runs (ms): ${swarmTimes.map((t) => t.toFixed(0)).join(' ')}\n  B16 local runs (ms): ${localTimes.map((t) => t.toFixed(0)).join(' ')}\n  B16 ratio per pair: ${ratios.map((r) => r.toFixed(2)).join(' ')} (median ${ratio.toFixed(2)}x, ${range})\n`,
    );
    return [
      {
        id: 'B16',
        name: `deploy → first 200 through the ingress, swarm vs local runner (value/baseline; median of ${RUNS} paired ratios, range ${range})`,
        value: median(swarmTimes),
        unit: 'ms',
        baseline: median(localTimes),
        baselineName: 'the same deploy under the local runner (default sandbox)',
        ratio,
        range: { min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length },
      },
    ];
  } finally {
    for (const platform of platforms.reverse()) await platform.stop().catch(() => undefined);
    await swarm.stop();
    await rm(work, { recursive: true, force: true });
  }
}
