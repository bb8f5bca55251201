// The webhook notifier over svc's HTTP client against a real receiver on port 0: a signed POST, any
// 2xx delivers, a redirect is never followed (the delivery fails), and the caller's signal bounds it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, webhookNotifier } from '../../../src/ops/monitor/webhook-notifier.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';

const SECRET = 's'.repeat(32);
let server: Server;
let origin: string;
const received: { path: string; ok: boolean }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const ok = verifyWebhookSignature(SECRET, String(req.headers['x-svc-timestamp']), body, String(req.headers['x-svc-signature']));
      received.push({ path: req.url ?? '', ok });
      if (req.url === '/moved') return void res.writeHead(307, { location: '/ok' }).end();
      if (req.url === '/hang') return; // never answers
      res.writeHead(req.url === '/ok' ? 204 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const alert = { id: 'inc_1.open' } as OperationalAlert;

describe('webhookNotifier', () => {
  it('delivers a signed alert on 2xx and fails on 5xx', async () => {
    await webhookNotifier({ url: `${origin}/ok`, secret: SECRET })(alert, AbortSignal.timeout(5000));
    await expect(webhookNotifier({ url: `${origin}/down`, secret: SECRET })(alert, AbortSignal.timeout(5000))).rejects.toThrow('webhook answered 500');
    expect(received.slice(0, 2)).toEqual([
      { path: '/ok', ok: true },
      { path: '/down', ok: true },
    ]);
  });

  it('does not follow a redirect, and gives up when the signal aborts', async () => {
    received.length = 0;
    await expect(webhookNotifier({ url: `${origin}/moved`, secret: SECRET })(alert, AbortSignal.timeout(5000))).rejects.toThrow('webhook answered 307');
    expect(received.map((r) => r.path)).toEqual(['/moved']);
    await expect(webhookNotifier({ url: `${origin}/hang`, secret: SECRET })(alert, AbortSignal.timeout(200))).rejects.toMatchObject({ reason: 'aborted' });
  });
});
