import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditExportEntry } from '../../../src/ops/audit-export/export-entry.js';
import { invite, personalOrg, register, startHarness, type Harness } from '../../platform/harness.js';
import { repoRoot } from '../../support/repo-root.js';

const ENV_KEYS = ['SVC_AUDIT_EXPORT_KEY_FILE', 'SVC_AUDIT_EXPORT_KEY_ID', 'SVC_AUDIT_EXPORT_URL'] as const;

function verifyCli(args: string[]): { status: number | null; out: { ok: boolean; code?: string; checkpoint?: { sequence: number } } } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/ops/audit-export/verify-main.ts'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, out: JSON.parse(run.stdout.trim() || '{}') as { ok: boolean; code?: string } };
}

describe('audit export wired into the control plane', () => {
  let h: Harness | undefined;
  let server: Server | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    for (const k of ENV_KEYS) delete process.env[k];
    await h?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports signed entries to an HTTP destination, shows status to the platform admin only, and the CLI verifies them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-ops-cli-'));
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'export.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(join(dir, 'export.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const received = new Map<number, AuditExportEntry>();
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        for (const e of (JSON.parse(body) as { entries: AuditExportEntry[] }).entries) received.set(e.sequence, e);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    process.env.SVC_AUDIT_EXPORT_KEY_FILE = join(dir, 'export.key');
    process.env.SVC_AUDIT_EXPORT_KEY_ID = 'platform-2026';
    process.env.SVC_AUDIT_EXPORT_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/audit`;
    h = await startHarness();
    const admin = await register(h.app, 'admin@example.com');
    const org = await personalOrg(h.app, admin);
    const other = await invite(h.app, admin, org, 'dev@example.com', 'owner');

    const exporter = h.plane.ops.auditExporter!;
    expect(exporter.keyId).toBe('platform-2026');
    const pass = await exporter.runOnce({ ignoreBackoff: true });
    expect(pass.delivered).toBeGreaterThanOrEqual(3);
    const status = await h.app.inject({ method: 'GET', url: '/api/admin/audit-export', headers: { cookie: admin.cookie } });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ configured: true, keyId: 'platform-2026', pending: 0, checkpoint: { sequence: pass.delivered } });
    const denied = await h.app.inject({ method: 'GET', url: '/api/admin/audit-export', headers: { cookie: other.cookie } });
    expect(denied.json().error.code).toBe('SVC_PLATFORM_ADMIN_REQUIRED');
    expect((await h.app.inject({ method: 'GET', url: '/api/admin/audit-export' })).json().error.code).toBe('SVC_AUTH_REQUIRED');

    const entries = [...received.values()].sort((a, b) => a.sequence - b.sequence);
    writeFileSync(join(dir, 'entries.json'), JSON.stringify(entries));
    const ok = verifyCli(['--entries', join(dir, 'entries.json'), '--key', `platform-2026=${join(dir, 'export.pub')}`]);
    expect(ok).toMatchObject({ status: 0, out: { ok: true, checkpoint: { sequence: entries.length } } });
    writeFileSync(join(dir, 'checkpoint.json'), JSON.stringify(ok.out.checkpoint));
    entries[1]!.event.actor.id = 'usr_someone_else';
    writeFileSync(join(dir, 'tampered.json'), JSON.stringify(entries));
    expect(verifyCli(['--entries', join(dir, 'tampered.json'), '--key', `platform-2026=${join(dir, 'export.pub')}`])).toMatchObject({
      status: 1,
      out: { ok: false, code: 'SVC_AUDIT_EXPORT_TAMPERED' },
    });
    writeFileSync(join(dir, 'short.json'), JSON.stringify(entries.slice(0, 1)));
    expect(
      verifyCli(['--entries', join(dir, 'short.json'), '--key', `platform-2026=${join(dir, 'export.pub')}`, '--checkpoint', join(dir, 'checkpoint.json')]).out
        .code,
    ).toBe('SVC_AUDIT_EXPORT_ROLLBACK');
    expect(verifyCli(['--entries', join(dir, 'entries.json')]).status).toBe(2);
  });

  it('is off when unset: the status routes still answer from the store', async () => {
    h = await startHarness();
    const admin = await register(h.app, 'admin@example.com');
    expect(h.plane.ops.auditExporter).toBeUndefined();
    const status = await h.app.inject({ method: 'GET', url: '/api/admin/audit-export', headers: { cookie: admin.cookie } });
    expect(status.json()).toMatchObject({ configured: false, keyId: null, checkpoint: { sequence: 0 }, signedThrough: 0 });
    // The monitor is off too: its state route answers, a run is refused explicitly.
    expect(h.plane.ops.monitor).toBeUndefined();
    expect((await h.app.inject({ method: 'GET', url: '/api/admin/operations', headers: { cookie: admin.cookie } })).json()).toMatchObject({
      configured: false,
      intervalMs: false,
      incidents: [],
    });
    expect((await h.app.inject({ method: 'POST', url: '/api/admin/operations/run', headers: admin.headers() })).json().error.code).toBe(
      'SVC_OPS_NOT_CONFIGURED',
    );
  });
});
