// B18: CLI start-up as a user runs it — `svc --version` spawned from bin/svc.js (the built CLI in dist/)
// against the floor of any Node CLI on this machine, `node -e 0`. Each round spawns both sides
// SPAWNS times in alternating order and keeps each side's median; the row is the median of the
// per-round ratios with their min–max. Target: <= 1.5x (60 ms against a 40 ms bare node).
// A second row counts CPU (user + system) per start, read from the shell's `times` after a loop of
// SPAWNS starts: on a shared, loaded machine wall time mostly measures the wait for a core.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/repo-root.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow } from './paired-row.js';
import { interleave, median, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B18_ROUNDS, 7);
const SPAWNS = 10;
const TARGET = 1.5;

/** Wall time of one process from spawn to exit; fails unless it exits 0 (and prints `expect`, when given). */
function timeProcess(args: string[], expect?: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}`));
      else if (expect && !expect.test(out)) reject(new Error(`node ${args.join(' ')} printed ${JSON.stringify(out)}`));
      else resolve(ms);
    });
  });
}

async function medianOf(args: string[], expect?: RegExp): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SPAWNS; i++) times.push(await timeProcess(args, expect));
  return median(times);
}

/** CPU seconds (user + system) of SPAWNS sequential runs of `node args`, from the shell's `times`, in ms per run. */
function cpuPerRun(args: string[]): Promise<number> {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `i=0; while [ $i -lt ${SPAWNS} ]; do ${quoted} >/dev/null || exit 1; i=$((i+1)); done; times`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      // Second line of `times`: the children's user and system time, e.g. "0m0.140000s 0m0.040000s".
      const children = out.trim().split('\n').at(-1) ?? '';
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      if (code !== 0 || seconds.length !== 2) reject(new Error(`sh -c ${script} exited ${code}: ${out}`));
      else resolve(((seconds[0]! + seconds[1]!) * 1000) / SPAWNS);
    });
  });
}

/** Run B18 and return its rows. */
export default async function b18(): Promise<BenchResult[]> {
  const bin = join(repoRoot, 'bin', 'svc.js');
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js'))) throw new Error('B18 times the built CLI: run `npm run build` first');
  const svc = [bin, '--version'];
  const bare = ['-e', '0'];
  // One warm-up each: the first spawn reads the files from disk.
  await timeProcess(svc, /^\d+\.\d+\.\d+/);
  await timeProcess(bare);
  const paired = await interleave(
    ROUNDS,
    () => medianOf(svc, /^\d+\.\d+\.\d+/),
    () => medianOf(bare),
  );
  const cpu = await interleave(
    ROUNDS,
    () => cpuPerRun(svc),
    () => cpuPerRun(bare),
  );
  const target = { text: `<= ${TARGET}x`, pass: (r: number) => r <= TARGET };
  return [
    pairedRow('B18', 'CLI start-up: `svc --version` spawned (time, value/baseline)', paired, 'ms', 'node -e 0', target),
    pairedRow('B18', 'CLI start-up: CPU (user + system) per `svc --version` (value/baseline)', cpu, 'ms', 'node -e 0', target),
  ];
}
