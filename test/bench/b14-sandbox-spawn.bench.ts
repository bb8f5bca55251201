// B14: app spawn → first 200 from its health route, the sandboxed process runner (bubblewrap, own network
// namespace through slirp4netns, a uid of its own when run as root) vs the plain unsandboxed
// ProcessRunner, same test app (test/runner/apps/server.mjs). Each sample is runner.start() plus the
// platform's own health poll (checkHealth, 5 ms between attempts so the poll adds little); the stop
// afterwards is not timed. Rounds are interleaved and alternate which side goes first, so host load
// hits both alike. Target: the sandbox adds well under 100 ms (median of the paired differences).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppRunner } from '../../runner/app-runner.js';
import { checkHealth } from '../../runner/health-check.js';
import { LogStore } from '../../runner/log-store.js';
import { ProcessRunner } from '../../runner/process-runner.js';
import { createSandboxRunner, readSandboxSettings } from '../../runner/sandbox/sandbox-settings.js';
import { appSpec, makeRoot } from '../runner/runner-helpers.js';
import type { BenchResult } from './bench-types.js';
import { median, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B14_ROUNDS, 9);
const TARGET_ADDED_MS = 100;
/** A uid no account uses, for the benchmark's one project (only when svc runs as root). */
const BENCH_UID = 231_000;

/** Milliseconds from start() to the first 200 of /healthz; the app is stopped afterwards. */
async function spawnToFirst200(runner: AppRunner, spec: ReturnType<typeof appSpec>): Promise<number> {
  const started = performance.now();
  const app = await runner.start(spec);
  try {
    const health = await checkHealth({ host: app.host, port: app.port, path: '/healthz', timeoutMs: 15_000, intervalMs: 5, exited: app.wait() });
    const elapsed = performance.now() - started;
    if (!health.ok) throw new Error(`B14: ${runner.kind} app never answered 200 (${health.reason}, last ${health.lastStatus ?? health.lastError})`);
    return elapsed;
  } finally {
    await app.stop({ graceMs: 2_000 });
  }
}

/** Run B14 and return its rows. */
export default async function b14(): Promise<BenchResult[]> {
  const { root, releaseDir } = await makeRoot();
  try {
    const logs = new LogStore({ dir: join(root, 'logs') });
    const asRoot = process.getuid?.() === 0;
    const sandbox = createSandboxRunner(readSandboxSettings({}), {
      runsDir: join(root, 'runs-sandbox'),
      logs,
      stopGraceMs: 2_000,
      ...(asRoot ? { uidFor: () => BENCH_UID } : {}),
    });
    const status = sandbox.status();
    if (!status.available) throw new Error(`B14 needs a working sandbox: ${status.problem?.code}: ${status.problem?.message}`);
    const plain = new ProcessRunner({ runsDir: join(root, 'runs-process'), logs, stopGraceMs: 2_000 });
    const spec = appSpec(root, releaseDir);

    // One unmeasured start each: the first pays for cold caches (node binary, slirp4netns, page cache).
    await spawnToFirst200(sandbox, spec);
    await spawnToFirst200(plain, spec);
    const sandboxed: number[] = [];
    const unsandboxed: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const isSandbox of order) {
        if (isSandbox) sandboxed.push(await spawnToFirst200(sandbox, spec));
        else unsandboxed.push(await spawnToFirst200(plain, spec));
      }
    }

    const ratios = sandboxed.map((ms, i) => ms / unsandboxed[i]!);
    const added = median(sandboxed.map((ms, i) => ms - unsandboxed[i]!));
    const sandboxMs = median(sandboxed);
    const plainMs = median(unsandboxed);
    const ratio = median(ratios);
    const how = `${status.network} network, ${status.perProjectUid ? 'own uid' : "svc's uid"}`;
    return [
      {
        id: 'B14',
        name: `app spawn → first 200: sandboxed (${how}) ÷ unsandboxed, median of ${ROUNDS} interleaved rounds (ratio min–max ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; lower is better)`,
        value: Number(sandboxMs.toFixed(1)),
        unit: 'ms',
        baseline: Number(plainMs.toFixed(1)),
        baselineName: 'ProcessRunner, no sandbox',
        ratio: Number(ratio.toFixed(3)),
        range: { min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length },
      },
      {
        id: 'B14',
        name: `time the sandbox adds to spawn → first 200 (median of ${ROUNDS} paired differences sandboxed − unsandboxed; ratio = added ÷ baseline)`,
        value: Number(added.toFixed(1)),
        unit: 'ms',
        baseline: Number(plainMs.toFixed(1)),
        baselineName: 'ProcessRunner, no sandbox',
        ratio: Number((added / plainMs).toFixed(3)),
        range: {
          min: Math.min(...sandboxed.map((ms, i) => (ms - unsandboxed[i]!) / unsandboxed[i]!)),
          max: Math.max(...sandboxed.map((ms, i) => (ms - unsandboxed[i]!) / unsandboxed[i]!)),
          rounds: ROUNDS,
        },
        target: `< ${TARGET_ADDED_MS} ms added`,
        pass: added < TARGET_ADDED_MS,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
