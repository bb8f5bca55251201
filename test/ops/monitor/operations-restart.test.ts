// Fault: the control plane closes with an undelivered alert (the receiver was down) and is reopened
// on the same data directory; the pending notification is delivered exactly once, with its id.
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import type { ControlPlane } from '../../../src/platform.js';
import { login } from '../../platform/harness.js';
import { adminWithProject, closeOpsPlatform, openOpsPlane } from '../ops-platform.js';

const ENV = ['SVC_OPS_WEBHOOK_URL', 'SVC_OPS_WEBHOOK_SECRET', 'SVC_OPS_INTERVAL_MS'] as const;

describe('operations monitor across a control-plane restart', () => {
  let plane: ControlPlane | undefined;
  let server: Server | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await closeOpsPlatform({ plane, server, dataDir }, ENV);
  });

  it('delivers a notification left pending at close once after reopening', async () => {
    let down = true;
    const received: OperationalAlert[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        if (down) return void res.writeHead(503).end();
        received.push(JSON.parse(body) as OperationalAlert);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    process.env.SVC_OPS_WEBHOOK_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    process.env.SVC_OPS_WEBHOOK_SECRET = 'test-webhook-secret-0123456789';
    process.env.SVC_OPS_INTERVAL_MS = 'false';
    dataDir = await mkdtemp(join(tmpdir(), 'svc-ops-restart-'));
    let offset = 0;
    const open = () => openOpsPlane(dataDir!, { now: () => Date.now() + offset });

    plane = await open();
    const { admin, project } = await adminWithProject(plane);
    expect(
      (await plane.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/backup-schedule`, headers: admin.headers(), payload: { intervalMinutes: 5 } }))
        .statusCode,
    ).toBe(200);
    offset = 11 * 60_000; // overdue
    const first = await plane.app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() });
    expect(first.json().pass).toMatchObject({ opened: 1, delivered: 0, failed: 1 });
    await plane.close();
    plane = undefined;

    down = false;
    offset += 5_000; // past the first backoff (1 s)
    plane = await open();
    const again = await login(plane.app, 'admin@example.com');
    const second = await plane.app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: again.headers() });
    expect(second.json().pass).toMatchObject({ opened: 0, delivered: 1, failed: 0 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ kind: 'backup.overdue', transition: 'open', projectId: project.id, id: `${received[0]!.incidentId}.open` });
    const third = await plane.app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: again.headers() });
    expect(third.json().pass).toMatchObject({ delivered: 0 });
    expect(received).toHaveLength(1);
    const state = (await plane.app.inject({ method: 'GET', url: '/api/admin/operations', headers: { cookie: again.cookie } })).json();
    expect(state.notifications).toEqual([expect.objectContaining({ alertId: received[0]!.id, status: 'delivered', attempts: 2 })]);
  }, 60_000);
});
