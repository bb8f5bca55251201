// B15b–d: the control plane keeps answering under its heaviest work. /livez p99 (a probe every 10 ms
// from another process) during (b) a deploy whose migration computes for ~10 s, (c) the upload and
// deploy of a 100 MB artifact of incompressible files, (d) an artifact-shaped decompression bomb
// (~0.5 MB of gzip declaring 5 × 64 MiB files; refused with 413) — each against /livez p99 of the same
// idle control plane measured right before it, in interleaved rounds. Target: p99 under 50 ms. Row (d)
// also reports how far the control plane's RSS rose during the bomb (VmRSS from /proc, sampled every
// 5 ms). The control plane runs as a child process (src/platform-main.ts), so its RSS and event loop
// are its own and the bench's packing and sending do not share them. By default the probes and uploads
// pass through svc-ingress, the separate process that owns the public port; SVC_INGRESS_PROCESS=off
// measures the control plane serving the port itself.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { readDeployConfig } from '../../src/artifacts/index.js';
import { DIGEST_HEADER, IDEMPOTENCY_HEADER, UPLOAD_MEDIA_TYPE } from '../../src/releases/contract.js';
import { documentBomb } from '../artifacts/artifact-bomb.js';
import { packFixture, ROOT, type Artifact } from '../releases/release-support.js';
import { bootstrapAccount } from '../support/account.js';
import { startPlatform } from '../support/start-platform.js';
import type { BenchResult } from './bench-types.js';
import { idleP99, livezRow, probeWhile } from './b15-probe.js';
import { percentile, roundsFrom } from './rounds.js';

const MiB = 1024 * 1024;
const ROUNDS = roundsFrom(process.env.SVC_B15_HEAVY_ROUNDS);
const IDLE_MS = 3_000;
// ~110 ms of SQLite per million rows on the 2-core box: about 10 s per migration.
const LONG_ROWS = Number(process.env.SVC_B15_MIGRATION_ROWS ?? 90_000_000);
const LONG = (n: number): string =>
  `CREATE TABLE long_${n} AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${LONG_ROWS}) SELECT sum(x) AS s FROM c;\n`;
// 100 MB of random bytes in 4 files (one file may hold 64 MiB by default; no limit needs raising:
// ~100 MB of gzip, ~134 MB decompressed, 100 MB of files are all under the defaults).
const BLOB_FILES = 4;
const BLOB_BYTES = 25_000_000;

interface Upload {
  status: number;
  body: { release?: { status: string }; error?: { code: string; message: string } };
}

/** VmRSS of a process in bytes, from /proc. */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return Number(kb![1]) * 1024;
}

export default async function b15Heavy(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-b15-heavy-'));
  const platform = await startPlatform({ env: { SVC_PROJECT_MAX_RELEASES: '50', SVC_LOG_LEVEL: 'warn' } });
  const pid = platform.child.pid!;
  try {
    const account = await bootstrapAccount(platform.url);
    const { project } = await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'bench b15', slug: `b15-${randomUUID().slice(0, 6)}` });
    const upload = async (artifact: Artifact): Promise<Upload> => {
      const response = await request(`${platform.url}/api/projects/${project.id}/releases`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${account.accessToken}`,
          'content-type': UPLOAD_MEDIA_TYPE,
          [DIGEST_HEADER]: artifact.digest,
          [IDEMPOTENCY_HEADER]: `b15-${randomUUID()}`,
        },
        body: artifact.bytes,
        headersTimeout: 300_000,
        bodyTimeout: 300_000,
      });
      return { status: response.statusCode, body: (await response.body.json()) as Upload['body'] };
    };
    const deploy = async (artifact: Artifact, what: string): Promise<void> => {
      const result = await upload(artifact);
      if (result.body.release?.status !== 'active') throw new Error(`B15: ${what} did not deploy (${result.status}): ${JSON.stringify(result.body)}`);
    };
    await deploy(await packFixture('healthy', work), 'the first release');

    // (b) a ~10 s migration; round r adds the r-th long migration (the earlier ones are applied already).
    const migrationIdle: number[] = [];
    const migrationBusy: number[] = [];
    const migrationSeconds: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const artifact = await packFixture('healthy', work, async (dir) => {
        for (let n = 1; n <= round; n++) await writeFile(join(dir, 'migrations', `${String(n + 1).padStart(4, '0')}_long_${n}.sql`), LONG(n));
      });
      migrationIdle.push(await idleP99(platform.url, IDLE_MS));
      const began = performance.now();
      const running = deploy(artifact, `migration round ${round}`);
      migrationBusy.push(percentile(await probeWhile(platform.url, running), 99));
      await running;
      migrationSeconds.push((performance.now() - began) / 1000);
    }

    // (c) 100 MB of incompressible files, packed by the real packer; a new build id per round.
    const uploadIdle: number[] = [];
    const uploadBusy: number[] = [];
    const uploadSizes: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const artifact = await packFixture('healthy', work, async (dir) => {
        for (let n = 1; n <= ROUNDS; n++) await writeFile(join(dir, 'migrations', `${String(n + 1).padStart(4, '0')}_long_${n}.sql`), LONG(n));
        for (let n = 0; n < BLOB_FILES; n++) await writeFile(join(dir, 'dist', `blob-${n}.bin`), randomBytes(BLOB_BYTES));
        await writeFile(join(dir, 'dist', 'build-id.txt'), `round ${round}\n`);
      });
      uploadSizes.push(artifact.bytes.length / 1e6);
      uploadIdle.push(await idleP99(platform.url, IDLE_MS));
      const running = deploy(artifact, `100 MB upload round ${round}`);
      uploadBusy.push(percentile(await probeWhile(platform.url, running), 99));
      await running;
    }

    // (d) the bomb: refused with its 413 code; RSS sampled from /proc meanwhile.
    const bombBytes = await documentBomb(await readDeployConfig(join(ROOT, 'fixtures', 'apps', 'healthy')), 5);
    const bomb: Artifact = { bytes: bombBytes, digest: createHash('sha256').update(bombBytes).digest('hex') };
    const bombIdle: number[] = [];
    const bombBusy: number[] = [];
    const growth: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      bombIdle.push(await idleP99(platform.url, IDLE_MS));
      const before = rssOf(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 5);
      const running = upload(bomb).then((result) => {
        if (result.status !== 413 || result.body.error?.code !== 'SVC_ARTIFACT_AGGREGATE_TOO_LARGE')
          throw new Error(`B15: the bomb was not refused as expected (${result.status}): ${JSON.stringify(result.body)}`);
      });
      try {
        bombBusy.push(percentile(await probeWhile(platform.url, running), 99));
        await running;
      } finally {
        clearInterval(sampler);
      }
      growth.push((Math.max(peak, rssOf(pid)) - before) / MiB);
    }
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1];
    const growthText = `RSS growth during the bomb ${Math.max(...growth).toFixed(1)} MiB at most (rounds ${growth.map((g) => g.toFixed(1)).join(', ')} MiB; VmHWM ${(Number(hwm) / 1024).toFixed(0)} MiB)`;
    process.stderr.write(
      `  B15b migration (s): ${migrationSeconds.map((s) => s.toFixed(1)).join(' ')}; p99 idle ${migrationIdle.map((v) => v.toFixed(1)).join(' ')} during ${migrationBusy.map((v) => v.toFixed(1)).join(' ')}\n` +
        `  B15c artifact (MB): ${uploadSizes.map((s) => s.toFixed(1)).join(' ')}; p99 idle ${uploadIdle.map((v) => v.toFixed(1)).join(' ')} during ${uploadBusy.map((v) => v.toFixed(1)).join(' ')}\n` +
        `  B15d bomb ${(bomb.bytes.length / MiB).toFixed(2)} MiB of gzip; p99 idle ${bombIdle.map((v) => v.toFixed(1)).join(' ')} during ${bombBusy.map((v) => v.toFixed(1)).join(' ')}; ${growthText}\n`,
    );
    // Since svc-ingress owns the public port, /livez and the upload body pass through it on their way to
    // the control plane (SVC_INGRESS_PROCESS=off: the control plane serves the port itself).
    const path = process.env.SVC_INGRESS_PROCESS === 'off' ? 'control plane on the port' : 'through svc-ingress';
    return [
      livezRow(
        'B15b',
        `a deploy whose migration computes ~${(Math.min(...migrationSeconds) | 0).toString()}–${Math.ceil(Math.max(...migrationSeconds))} s (whole deploy; ${path})`,
        migrationBusy,
        migrationIdle,
      ),
      livezRow('B15c', `the upload and deploy of a ${Math.round(uploadSizes[0]!)} MB artifact (100 MB of random files; ${path})`, uploadBusy, uploadIdle),
      livezRow(
        'B15d',
        `a decompression-bomb upload (${(bomb.bytes.length / MiB).toFixed(1)} MiB of gzip declaring 5 × 64 MiB, refused with 413; ${path})`,
        bombBusy,
        bombIdle,
        `; ${growthText}`,
      ),
    ];
  } finally {
    await platform.stop();
    await rm(work, { recursive: true, force: true });
  }
}
