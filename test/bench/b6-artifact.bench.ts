// B6: pack and verify+extract of a 50 MB / 5,000-file tree against `tar czf` / `tar xzf` on the same tree.
// Targets: pack <= 1.5x tar czf, verify+extract <= 2x tar xzf. Interleaved rounds (order alternating);
// each row is the median of the per-round ratios with their min–max.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeArtifact, extractArtifact, packArtifact } from '../../src/artifacts/index.js';
import { command } from '../../src/core/command.js';
import { execChecked } from '../../src/core/exec.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow } from './paired-row.js';
import { interleave, roundsFrom } from './rounds.js';

const FILES = 5_000;
const TOTAL_BYTES = 50 * 1000 * 1000;
const ROUNDS = roundsFrom(process.env.SVC_B6_ROUNDS);

/** Deterministic PRNG (mulberry32) so every run packs the same tree. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = [
  'const',
  'function',
  'return',
  'import',
  'export',
  'await',
  'async',
  'if',
  'else',
  'for',
  'of',
  'new',
  'this',
  'value',
  'result',
  'request',
  'response',
  'error',
  'data',
  'items',
  'length',
  'map',
  'filter',
  'reduce',
  '=>',
  '{',
  '}',
  '(',
  ')',
  ';',
  '=',
  '.',
  ',',
  '\n  ',
  '\n',
];

/** A realistic build output: 80 % JavaScript-like text (compressible), 20 % binary assets (incompressible). */
async function makeTree(root: string): Promise<void> {
  const random = prng(6);
  const weights = Array.from({ length: FILES }, () => 0.2 + random() * random() * 4);
  const scale = TOTAL_BYTES / weights.reduce((a, b) => a + b, 0);
  await writeFile(join(root, 'svc.deploy.json'), JSON.stringify({ version: 1, entry: 'dist/d000/f0000.js' }));
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, 'dist', `d${String(Math.floor(i / 100)).padStart(3, '0')}`);
    if (i % 100 === 0) await mkdir(dir, { recursive: true });
    const size = Math.max(1, Math.round(weights[i]! * scale));
    let content: Buffer;
    if (i % 5 === 4) {
      content = Buffer.alloc(size);
      for (let b = 0; b < size; b++) content[b] = (random() * 256) | 0;
      await writeFile(join(dir, `f${String(i).padStart(4, '0')}.bin`), content);
    } else {
      const parts: string[] = [];
      let length = 0;
      while (length < size) {
        const word = words[(random() * words.length) | 0]!;
        const token = random() < 0.1 ? `${word}${(random() * 1e6) | 0}` : word;
        parts.push(token, ' ');
        length += token.length + 1;
      }
      await writeFile(join(dir, `f${String(i).padStart(4, '0')}.js`), parts.join('').slice(0, size));
    }
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Run B6 and return its rows. */
export default async function b6(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b6-'));
  try {
    const app = join(work, 'app');
    await mkdir(app);
    await makeTree(app);
    const tgz = join(work, 'tree.tgz');
    let artifactBytes = 0;
    let artifactPath = '';
    const packs = await interleave(
      ROUNDS,
      () =>
        time(async () => {
          const packed = await packArtifact(app);
          artifactBytes = packed.bytes.length;
          artifactPath = join(work, `${packed.digest}.svc.gz`);
          await writeFile(artifactPath, packed.bytes);
        }),
      () => time(() => execChecked(command('tar', ['czf', tgz, '-C', app, 'dist']))),
    );
    const extracts = await interleave(
      ROUNDS,
      async (round) => {
        const target = join(work, `svc-${round}`);
        const ms = await time(async () => extractArtifact(await decodeArtifact(await readFile(artifactPath)), target));
        await rm(target, { recursive: true, force: true });
        return ms;
      },
      async (round) => {
        const tarTarget = join(work, `tar-${round}`);
        await mkdir(tarTarget);
        const ms = await time(() => execChecked(command('tar', ['xzf', tgz, '-C', tarTarget])));
        await rm(tarTarget, { recursive: true, force: true });
        return ms;
      },
    );
    const tgzBytes = (await readFile(tgz)).length;
    return [
      pairedRow('B6', 'pack 50 MB / 5,000 files (time, value/baseline)', packs, 'ms', 'tar czf', { text: '<= 1.5x', pass: (r) => r <= 1.5 }),
      pairedRow('B6', 'verify + extract, fsync (time, value/baseline)', extracts, 'ms', 'tar xzf', { text: '<= 2x', pass: (r) => r <= 2 }),
      {
        id: 'B6',
        name: 'compressed size (value/baseline)',
        value: artifactBytes / 1e6,
        unit: 'MB',
        baseline: tgzBytes / 1e6,
        baselineName: 'tar czf',
        ratio: artifactBytes / tgzBytes,
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
