// End to end: the packaged platform runs restore drills from its monitor with the default boot —
// the project's active release (the healthy fixture, a real process) started on a private copy of
// the newest backup, checked on its health path — and a corrupted newest backup fails the drill,
// raises drill.failed through the signed webhook and leaves the production database untouched.
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectDatabase } from '../../../src/backups/index.js';
import { listBackups } from '../../../src/backups/backup-store.js';
import type { OperationalAlert } from '../../../src/ops/monitor/incident-store.js';
import type { ControlPlane } from '../../../src/platform.js';
import { packFixture } from '../../releases/release-support.js';
import { adminWithProject, closeOpsPlatform, openOpsPlane, uploadRelease } from '../ops-platform.js';

const ENV = {
  SVC_OPS_WEBHOOK_URL: '',
  SVC_OPS_WEBHOOK_SECRET: 'test-webhook-secret-0123456789',
  SVC_OPS_INTERVAL_MS: 'false',
  SVC_RESTORE_DRILL_INTERVAL_MS: '60000',
  SVC_RESTORE_DRILL_TIMEOUT_MS: '30000',
};

describe('restore drills in the packaged platform', () => {
  let plane: ControlPlane | undefined;
  let server: Server | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await closeOpsPlatform({ plane, server, dataDir }, Object.keys(ENV));
  });

  it('drills the active release on a private copy; a corrupted backup fails the drill and alerts; production is untouched', async () => {
    const received: OperationalAlert[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push(JSON.parse(body) as OperationalAlert);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    Object.assign(process.env, ENV, { SVC_OPS_WEBHOOK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` });

    dataDir = await mkdtemp(join(tmpdir(), 'svc-ops-drill-'));
    let offset = 0;
    plane = await openOpsPlane(dataDir, { now: () => Date.now() + offset });
    const app = plane.app;
    const { admin, project } = await adminWithProject(plane);
    const artifact = await packFixture('healthy', dataDir);
    const upload = await uploadRelease(plane, admin, project.id, artifact);
    expect(upload.statusCode, upload.body).toBe(201);
    const release = upload.json().release as { id: string; status: string };
    expect(release.status).toBe('active');
    const running = plane.releases.current(project.id)!;
    const prodUrl = `http://${running.host}:${running.port}`;
    expect((await fetch(`${prodUrl}/notes`, { method: 'POST', body: JSON.stringify({ text: 'production note' }) })).status).toBe(201);
    expect((await app.inject({ method: 'POST', url: `/api/projects/${project.id}/backups`, headers: admin.headers() })).statusCode).toBe(201);

    const run = async () => {
      const res = await app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().pass as { drill: { projectId: string; outcome: string } | null; opened: number; delivered: number };
    };
    // A drill boots its own copy of the app: the production route must not move, not even briefly.
    const route = plane.ingress.routes.get(project.id)!;
    const routed = { target: route.target, generation: route.generation };
    expect(routed.target?.port).toBe(running.port);
    const passed = await run();
    expect(passed).toMatchObject({ drill: { projectId: project.id, outcome: 'passed' }, opened: 0 });
    const state = (await app.inject({ method: 'GET', url: '/api/admin/operations', headers: { cookie: admin.cookie } })).json();
    expect(state.drills[0]).toMatchObject({
      projectId: project.id,
      releaseId: release.id,
      outcome: 'passed',
      code: null,
      checks: [{ name: 'health', path: '/healthz', expected: 200, status: 200, ok: true }],
    });

    // A newer backup whose file is corrupted on disk.
    expect((await app.inject({ method: 'POST', url: `/api/projects/${project.id}/backups`, headers: admin.headers() })).statusCode).toBe(201);
    const newest = listBackups({ db: plane.db }, project.id)[0]!;
    const bytes = await readFile(newest.path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    await writeFile(newest.path, bytes);
    const prodPath = projectDatabase(plane.backups.deps.ctx, project.id)!.path;
    const before = await readFile(prodPath);
    offset += 61_000;
    const failed = await run();
    expect(failed).toMatchObject({ drill: { projectId: project.id, outcome: 'setup-failed' }, opened: 1, delivered: 1 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      kind: 'drill.failed',
      transition: 'open',
      projectId: project.id,
      details: { code: 'SVC_OPS_DRILL_SETUP', backupId: newest.id },
    });
    expect((await readFile(prodPath)).equals(before)).toBe(true);
    expect(await (await fetch(`${prodUrl}/notes`)).json()).toMatchObject({ notes: [{ text: 'production note' }] });
    expect(plane.releases.current(project.id)?.port).toBe(running.port); // production app kept running
    expect({ target: route.target, generation: route.generation }).toEqual(routed);
    expect(route.target).toBe(routed.target);
  }, 120_000);
});
