// app.unhealthy on the packaged platform: the healthy fixture is deployed (a real supervised
// process), then frozen with SIGSTOP so its health path stops answering; the monitor raises
// app.unhealthy (grace 0 here) and resolves it once the process is continued.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import type { ControlPlane } from '../../../src/platform.js';
import { packFixture } from '../../releases/release-support.js';
import { adminWithProject, closeOpsPlatform, openOpsPlane, uploadRelease } from '../ops-platform.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const ENV = {
  SVC_OPS_WEBHOOK_SECRET: 'test-webhook-secret-0123456789',
  SVC_OPS_INTERVAL_MS: 'false',
  SVC_OPS_UNHEALTHY_GRACE_MS: '0',
  SVC_RESTORE_DRILL_INTERVAL_MS: 'false',
};

describe('unhealthy always-on app in the packaged platform', () => {
  let plane: ControlPlane | undefined;
  let server: Server | undefined;
  let dataDir: string | undefined;
  let frozen: number | undefined;
  afterEach(async () => {
    if (frozen) process.kill(-frozen, 'SIGCONT');
    await closeOpsPlatform({ plane, server, dataDir }, [...Object.keys(ENV), 'SVC_OPS_WEBHOOK_URL']);
  });

  it('raises app.unhealthy for an app that stops answering its health path and resolves it when it answers again', async () => {
    const received: OperationalAlert[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => void (received.push(JSON.parse(body) as OperationalAlert), res.writeHead(204).end()));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    Object.assign(process.env, ENV, { SVC_OPS_WEBHOOK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });
    dataDir = await mkdtemp(join(tmpdir(), 'svc-ops-unhealthy-'));
    plane = await openOpsPlane(dataDir);
    const app = plane.app;
    const { admin, project } = await adminWithProject(plane);
    const artifact = await packFixture('healthy', dataDir);
    const upload = await uploadRelease(plane, admin, project.id, artifact);
    expect(upload.json().release?.status, upload.body).toBe('active');
    const run = async () => (await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() })).json().pass;

    expect(await run()).toMatchObject({ opened: 0 });
    // Freeze the app itself: in a sandbox it leads the session of the sandbox's init, not the launcher's group.
    const current = plane.releases.current(project.id)!;
    const pid = current.record().sandbox?.initPid ?? current.pid!;
    process.kill(-pid, 'SIGSTOP');
    frozen = pid;
    expect(await run()).toMatchObject({ opened: 1, delivered: 1 });
    expect(received[0]).toMatchObject({
      kind: 'app.unhealthy',
      projectId: project.id,
      details: { reason: 'failing-health', healthPath: '/healthz', healthStatus: null },
    });
    process.kill(-pid, 'SIGCONT');
    frozen = undefined;
    expect(await run()).toMatchObject({ resolved: 1, delivered: 1 });
    expect(received.map((a) => a.transition)).toEqual(['open', 'resolve']);
  }, 120_000);
});
