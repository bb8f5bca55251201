// B15: the control plane keeps answering while a deploy migrates. /livez p99 (a probe every 10 ms from
// another process) during a deploy whose migration computes for about a second, against /livez p99 of the
// same idle control plane, in interleaved rounds. Target: p99 under 50 ms during the migration.
// A ~10 s migration, a 100 MB upload and a decompression bomb: b15-livez-under-load.bench.ts.
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packFixture, removeDataDir, startPlane } from '../releases/release-support.js';
import type { BenchResult } from './bench-types.js';
import { livezRow, probeWhile } from './b15-probe.js';
import { percentile, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B15_ROUNDS);
const HEAVY = (n: number) =>
  `CREATE TABLE heavy_${n} AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000000) SELECT sum(x) AS s FROM c;\n`;

export default async function b15(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-b15-'));
  const plane = await startPlane();
  try {
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(plane.app.server.address() as AddressInfo).port}`;
    const first = await plane.upload(await packFixture('healthy', work));
    if (first.json().release?.status !== 'active') throw new Error(`B15: first deploy failed: ${first.body}`);
    const idleP99: number[] = [];
    const busyP99: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const artifact = await packFixture('healthy', work, async (dir) => {
        for (let n = 1; n <= round; n++) await writeFile(join(dir, 'migrations', `${String(n + 1).padStart(4, '0')}_heavy_${n}.sql`), HEAVY(n));
      });
      const idle = await probeWhile(origin, new Promise((r) => setTimeout(r, 1_500)));
      const deploy = plane.upload(artifact);
      const busy = await probeWhile(origin, deploy);
      const result = await deploy;
      if (result.json().release?.status !== 'active') throw new Error(`B15: round ${round} deploy failed: ${result.body}`);
      idleP99.push(percentile(idle, 99));
      busyP99.push(percentile(busy, 99));
    }
    return [livezRow('B15', 'a deploy whose migration computes ~1 s', busyP99, idleP99)];
  } finally {
    await plane.close();
    await removeDataDir(plane.dataDir);
    await removeDataDir(work);
  }
}
