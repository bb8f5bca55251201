// Debian's caddy on loopback with on-demand TLS (internal CA): it asks svc's /_svc/tls/ask before
// issuing a certificate, so only domains svc serves get one, and it proxies them to the app.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, packFixture, removeDataDir, startPlane, type Plane } from '../releases/release-support.js';
import { commandComponent, requireComponents } from '../support/require-components.js';
import { CADDY, httpsGet, startAskRecorder, startCaddy, type RunningCaddy } from './tls-ask-caddy.js';

const TOKEN = 'caddy-ask-token-9f8e7d6c5b4a';
const gate = requireComponents('Caddy on-demand TLS', [commandComponent('caddy', [CADDY, 'version'])]);
let work: string;
let plane: Plane;
let svc: string;
const caddies: RunningCaddy[] = [];
const recorders: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  if (gate.skip) return;
  gate.assertPresent();
  work = await mkdtemp(join(tmpdir(), 'svc-caddy-'));
  const artifact = await packFixture('healthy', work);
  plane = await startPlane({ env: { SVC_TLS_ASK_TOKEN: TOKEN } });
  const res = await plane.upload(artifact);
  if (res.statusCode !== 201) throw new Error(res.body);
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  const address = plane.app.server.address();
  svc = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const add = await plane.api('POST', `/api/projects/${plane.project.id}/domains`, { domain: 'shop.example.test' });
  if (add.statusCode !== 201) throw new Error(add.body);
}, 120_000);
afterAll(async () => {
  for (const c of caddies) await c.stop();
  for (const r of recorders) await r.close();
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
  if (work) await removeDataDir(work);
});

describe.skipIf(gate.skip)('Caddy on-demand TLS in front of svc', () => {
  it('issues a certificate for a served custom domain and proxies it to the app; refuses unknown domains', async () => {
    const dir = await mkdtemp(join(work, 'c1-'));
    const recorder = await startAskRecorder(svc);
    recorders.push(recorder);
    const caddy = await startCaddy({ dir, svc, askToken: TOKEN, askVia: recorder.address });
    caddies.push(caddy);
    // The first handshake makes Caddy provision its internal CA; retry until the root exists and verifies.
    const res = await eventually(async () => {
      const ca = caddy.rootCa();
      if (!ca) {
        await httpsGet(caddy.httpsPort, 'shop.example.test', '/', '').catch(() => undefined);
        return null;
      }
      return httpsGet(caddy.httpsPort, 'shop.example.test', '/', ca);
    }, 30_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${caddy.output()}`);
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ app: 'healthy', version: 1 });

    const unknown = await httpsGet(caddy.httpsPort, 'evil.example.test', '/', caddy.rootCa()).catch((error: unknown) => error as Error);
    expect(unknown).toBeInstanceOf(Error);
    // Caddy asked svc about both names; svc said yes only for the one it serves.
    expect(recorder.asks).toContainEqual({ domain: 'shop.example.test', status: 200 });
    expect(recorder.asks).toContainEqual({ domain: 'evil.example.test', status: 404 });
    expect(recorder.asks.filter((a) => a.status === 200).every((a) => a.domain === 'shop.example.test')).toBe(true);
  });

  it('with a wrong ask token Caddy gets no permission from svc and issues nothing', async () => {
    const dir = await mkdtemp(join(work, 'c2-'));
    const recorder = await startAskRecorder(svc);
    recorders.push(recorder);
    const caddy = await startCaddy({ dir, svc, askToken: 'not-the-token-000000', askVia: recorder.address });
    caddies.push(caddy);
    const result = await httpsGet(caddy.httpsPort, 'shop.example.test', '/', '').catch((error: unknown) => error as Error);
    expect(result).toBeInstanceOf(Error);
    expect(recorder.asks).toEqual([{ domain: 'shop.example.test', status: 403 }]);
  });
});
