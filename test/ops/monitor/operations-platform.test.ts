// End to end: one monitor pass over a project whose deploy failed (a real upload of a fixture app
// with a failing migration) and whose backup schedule is overdue, with both alerts received by a
// real HTTP webhook receiver on port 0 that checks the HMAC signature.
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../../../src/ops/monitor/webhook-notifier.js';
import type { ControlPlane } from '../../../src/platform.js';
import { invite, personalOrg } from '../../platform/harness.js';
import { packFixture } from '../../releases/release-support.js';
import { adminWithProject, closeOpsPlatform, openOpsPlane, uploadRelease } from '../ops-platform.js';

const SECRET = 'test-webhook-secret-0123456789';
const ENV = ['SVC_OPS_WEBHOOK_URL', 'SVC_OPS_WEBHOOK_SECRET', 'SVC_OPS_INTERVAL_MS'] as const;

describe('operations monitor in the control plane', () => {
  let plane: ControlPlane | undefined;
  let server: Server | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await closeOpsPlatform({ plane, server, dataDir }, ENV);
  });

  it('raises deployment-failed and backup-overdue alerts and delivers both through the signed webhook', async () => {
    const received: { alert: OperationalAlert; valid: boolean }[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const valid = verifyWebhookSignature(SECRET, String(req.headers[WEBHOOK_TIMESTAMP_HEADER]), body, String(req.headers[WEBHOOK_SIGNATURE_HEADER]));
        received.push({ alert: JSON.parse(body) as OperationalAlert, valid });
        res.writeHead(valid ? 204 : 401).end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    process.env.SVC_OPS_WEBHOOK_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/svc`;
    process.env.SVC_OPS_WEBHOOK_SECRET = SECRET;
    process.env.SVC_OPS_INTERVAL_MS = 'false';

    dataDir = await mkdtemp(join(tmpdir(), 'svc-ops-plane-'));
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    plane = await openOpsPlane(dataDir, clock);
    const app = plane.app;
    const { admin, project } = await adminWithProject(plane);

    const artifact = await packFixture('bad-migration', dataDir);
    const upload = await uploadRelease(plane, admin, project.id, artifact);
    expect(upload.statusCode, upload.body).toBe(201);
    expect(upload.json().release.status).toBe('failed');
    const schedule = await app.inject({
      method: 'PUT',
      url: `/api/projects/${project.id}/backup-schedule`,
      headers: admin.headers(),
      payload: { intervalMinutes: 5 },
    });
    expect(schedule.statusCode, schedule.body).toBe(200);
    offset = 11 * 60_000; // two whole intervals without a successful scheduled backup → overdue
    expect(plane.backups.list(project.id).schedule?.overdue).toBe(true);

    // A non-admin owner cannot run the monitor; the admin needs CSRF for the run.
    const org = await personalOrg(app, admin);
    const other = await invite(app, admin, org, 'other@example.com', 'owner');
    expect((await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: other.headers() })).json().error.code).toBe(
      'SVC_PLATFORM_ADMIN_REQUIRED',
    );
    expect(
      (await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: { cookie: admin.cookie, origin: 'http://127.0.0.1:7070' } })).json().error
        .code,
    ).toBe('SVC_CSRF_INVALID');

    const run = await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().pass).toMatchObject({ opened: 2, delivered: 2, failed: 0 });
    expect(received.every((r) => r.valid)).toBe(true);
    expect(received.map((r) => r.alert.kind).sort()).toEqual(['backup.overdue', 'deployment.failed']);
    expect(received.every((r) => r.alert.projectId === project.id && r.alert.transition === 'open' && r.alert.id === `${r.alert.incidentId}.open`)).toBe(true);

    const state = await app.inject({ method: 'GET', url: '/api/admin/operations', headers: { cookie: admin.cookie } });
    expect(state.json()).toMatchObject({ configured: true, intervalMs: false, lastPass: { opened: 2 } });
    expect(state.json().notifications.every((n: { status: string }) => n.status === 'delivered')).toBe(true);
    // A second pass re-sends nothing.
    expect((await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() })).json().pass).toMatchObject({
      opened: 0,
      delivered: 0,
    });
    expect(received).toHaveLength(2);
  }, 120_000);
});
