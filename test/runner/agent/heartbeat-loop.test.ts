// The heartbeat loop against a small HTTP server: first beat awaited, then every third of the
// server's nodeLeaseMs; drain sends `draining: true` at once; stop ends the beats; failures are survived.
import { afterAll, describe, expect, it } from 'vitest';
import { createCoordinatorClient } from '../../../runner/agent/create-coordinator-client.js';
import { startHeartbeatLoop } from '../../../runner/agent/heartbeat-loop.js';
import { listen } from '../provider/provider-helpers.js';

const beats: { at: number; body: { draining: boolean; capacity: number; labels: Record<string, string> } }[] = [];
let failNext = 0;
const server = await listen((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (c: string) => (body += c));
  req.on('end', () => {
    beats.push({ at: Date.now(), body: JSON.parse(body) as (typeof beats)[number]['body'] });
    if (failNext > 0 && failNext--) return void res.writeHead(500).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ nodeLeaseMs: 300, serverTime: new Date().toISOString() }));
  });
});
afterAll(() => server.close());

describe('startHeartbeatLoop', () => {
  it('beats every third of nodeLeaseMs with capacity and labels, survives failures, drains and stops', async () => {
    const client = createCoordinatorClient({ controlUrl: server.url, credential: 'c'.repeat(40), maxArtifactBytes: 1024, retryAttempts: 1, retryDelayMs: 1 });
    const errors: unknown[] = [];
    const loop = await startHeartbeatLoop({ client, capacity: 4, labels: { zone: 'a' }, onError: (e) => errors.push(e) });
    expect(beats).toHaveLength(1);
    expect(beats[0]!.body).toEqual({ draining: false, capacity: 4, labels: { zone: 'a' } });
    failNext = 1;
    await new Promise((r) => setTimeout(r, 750));
    // ~100 ms apart after the first answer (300 / 3); one 500 is logged and the loop goes on.
    expect(beats.length).toBeGreaterThanOrEqual(5);
    expect(errors.length).toBe(1);
    await loop.drain();
    expect(beats.at(-1)!.body.draining).toBe(true);
    loop.stop();
    // A beat already in flight when stop() ran may still land; after that, none may follow.
    await new Promise((r) => setTimeout(r, 100));
    const count = beats.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(beats.length).toBe(count);
  });
});
