// app.unhealthy on the packaged platform: the healthy fixture is deployed (a real supervised
// process), then frozen with SIGSTOP so its health path stops answering; the monitor raises
// app.unhealthy (grace 0 here) and resolves it once the process is continued.
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testPlatformConfig } from '../../../src/core/config.js';
import { createLogger } from '../../../src/core/logger.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import { buildControlPlane, type ControlPlane } from '../../../src/platform.js';
import { createProject, register } from '../../platform/harness.js';
import { packFixture, removeDataDir } from '../../releases/release-support.js';
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
    for (const k of [...Object.keys(ENV), 'SVC_OPS_WEBHOOK_URL']) delete process.env[k];
    await plane?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    if (dataDir) await removeDataDir(dataDir);
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
    plane = await buildControlPlane({
      config: testPlatformConfig({ dataDir, publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent' }),
      logger: createLogger({ level: 'silent' }),
    });
    const app = plane.app;
    const admin = await register(app, 'admin@example.com');
    const project = await createProject(app, admin, { name: 'Shop', slug: `shop-${randomUUID().slice(0, 6)}` });
    const artifact = await packFixture('healthy', dataDir);
    const upload = await app.inject({
      method: 'POST',
      url: `/api/projects/${project.id}/releases`,
      headers: admin.headers({
        'content-type': 'application/vnd.svc.deploy+gzip',
        'x-svc-artifact-digest': artifact.digest,
        'idempotency-key': `key-${randomUUID()}`,
      }),
      payload: artifact.bytes,
    });
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
