// B20: waking a sleeping preview. The first request to a preview the idle sweep stopped waits while the
// app starts and passes its health check; the baseline is the same app started the same way without a
// request waiting (the release pipeline's supervised start, health gate and route, timed alone). The
// ratio is what the wake path adds (a held request, the wake listener, the project lock) on top of the
// start itself. Target: <= 1.2x. Real control plane, real app process, the in-process ingress on loopback.
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { packFixture, removeDataDir, startPlane } from '../releases/release-support.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow } from './paired-row.js';
import { interleave, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B20_ROUNDS, 7);
const TARGET = 1.2;
const HEAD = 'e'.repeat(40);

/** Run B20 and return its row. */
export default async function b20(): Promise<BenchResult[]> {
  const work = await mkdtemp(join(tmpdir(), 'svc-b20-'));
  const plane = await startPlane({ env: { SVC_PREVIEW_IDLE_MS: '3600000' } });
  try {
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (plane.app.server.address() as AddressInfo).port;
    const artifact = await packFixture('healthy', work);
    const previews = plane.plane.previews;
    const opened = await previews.lifecycle.open({
      parentProjectId: plane.project.id,
      number: 1,
      title: 'bench',
      author: null,
      headRef: 'bench',
      headSha: HEAD,
      fork: false,
    });
    if (opened.kind !== 'ready') throw new Error(`B20: no preview (${opened.kind})`);
    const upload = await plane.app.inject({
      method: 'POST',
      url: `/api/projects/${plane.project.id}/previews/1/releases`,
      headers: plane.owner.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': 'b20-preview',
        'x-svc-commit-sha': HEAD,
      }),
      payload: artifact.bytes,
    });
    const releaseId = (upload.json() as { release?: { id: string; status: string } }).release;
    if (upload.statusCode !== 201 || releaseId?.status !== 'active') throw new Error(`B20: preview upload failed: ${upload.body}`);
    const previewId = opened.previewProjectId;
    const host = `pr-1--${plane.project.slug}.localhost:${port}`;
    const get = async (): Promise<void> => {
      const response = await request(`http://127.0.0.1:${port}/`, { headers: { host } });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`B20: the woken preview answered ${response.statusCode}`);
    };
    let sweeps = 0;
    const paired = await interleave(
      ROUNDS,
      async () => {
        // The sweep's clock moved past the idle setting: it stops the preview (untimed).
        const stopped = await previews.sweep(Date.now() + 3_600_000 * ++sweeps);
        if (!stopped.includes(previewId)) throw new Error('B20: the sweep did not stop the preview');
        const started = performance.now();
        await get();
        return performance.now() - started;
      },
      async () => {
        await plane.plane.releases.apps.stop(previewId);
        const started = performance.now();
        await plane.plane.releases.apps.start(previewId, releaseId.id);
        const ms = performance.now() - started;
        await get();
        return ms;
      },
    );
    const target = { text: `<= ${TARGET}x`, pass: (r: number) => r <= TARGET };
    return [
      pairedRow(
        'B20',
        'Preview wake: first request to a sleeping preview, answered (value/baseline)',
        paired,
        'ms',
        'supervised start + health + route',
        target,
      ),
    ];
  } finally {
    await plane.close();
    await removeDataDir(plane.dataDir);
    await removeDataDir(work);
  }
}
