// Closing the control plane while a proxied server-sent event stream is open: the close finishes
// after the grace period (the stream is cut) and every request's metrics reach SQLite.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Pool } from 'undici';
import { openControlDb } from '../../src/core/control-db.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

let plane: ListeningPlane | undefined;
let upstream: UpstreamProcess | undefined;

afterAll(async () => {
  await upstream?.stop();
  if (plane) rmSync(plane.dir, { recursive: true, force: true });
});

it('cuts long streams after the grace period on close and flushes metrics before the database closes', async () => {
  [plane, upstream] = await Promise.all([startListeningPlane(), startUpstream('S')]);
  plane.plane.ingress.routes.setProject({ id: 'prj_sse', slug: 'sse' }, { host: '127.0.0.1', port: upstream.port }, 'rel_s');
  const client = new Pool(plane.url);
  const host = `sse.localhost:${plane.port}`;
  for (let i = 0; i < 3; i++) await (await client.request({ path: '/whoami', method: 'GET', headers: { host } })).body.arrayBuffer();
  const sse = await client.request({ path: '/sse?id=never', method: 'GET', headers: { host } });
  const iterator = sse.body[Symbol.asyncIterator]();
  expect(String((await iterator.next()).value)).toContain('first S');
  const drained = (async () => {
    try {
      while (!(await iterator.next()).done);
      return 'ended';
    } catch {
      return 'cut';
    }
  })();

  const started = Date.now();
  await plane.plane.close();
  const elapsed = Date.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(2_500);
  expect(elapsed).toBeLessThan(10_000);
  expect(['ended', 'cut']).toContain(await drained);
  await client.destroy();

  const db = openControlDb(join(plane.dir, 'data', 'control.db'));
  const sum = db.prepare("SELECT SUM(requests) AS n FROM ingress_metrics_minute WHERE project_id = 'prj_sse'").get() as { n: number };
  db.close();
  expect(sum.n).toBe(4);
}, 30_000);
