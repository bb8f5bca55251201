import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { isSvcError } from '../../src/core/errors.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane } from '../../src/platform.js';
import { bearer, createProject, createToken, invite, personalOrg, register, startHarness, START, type Harness } from '../platform/harness.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function harness(env: Record<string, string> = {}): Promise<Harness> {
  const h = await startHarness({ env });
  cleanup.push(() => h.close());
  return h;
}

describe('secrets API', () => {
  it('sets, lists (names only), replaces and deletes secrets; values never come back; name changes are audited', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const value = 'first line\nsecond line\r\nthird';
    const put = await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/API_KEY`, headers: owner.headers(), payload: { value } });
    expect(put.statusCode).toBe(201);
    expect(put.body).not.toContain('second line');
    expect(put.json()).toMatchObject({ secret: { name: 'API_KEY' }, created: true, effective: 'next-release-or-restart' });
    const again = await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/API_KEY`, headers: owner.headers(), payload: { value: 'v2' } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: false });

    const list = await h.app.inject({ method: 'GET', url: `/api/projects/shop/secrets`, headers: owner.headers() });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ secrets: [{ name: 'API_KEY', scope: 'production', createdAt: expect.any(String), updatedAt: expect.any(String) }] });
    expect(list.body).not.toContain('v2');

    // Stored encrypted: neither value appears in the control database file or its WAL.
    const row = h.plane.db.prepare('SELECT ciphertext FROM secrets').get() as { ciphertext: Buffer };
    expect(row.ciphertext.includes(Buffer.from('v2'))).toBe(false);
    expect(await h.plane.secrets.loadSecrets(project.id)).toEqual({ API_KEY: 'v2' });

    const del = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/secrets/API_KEY`, headers: owner.headers() });
    expect(del.statusCode).toBe(200);
    const missing = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/secrets/API_KEY`, headers: owner.headers() });
    expect(missing.json().error.code).toBe('SVC_SECRET_NOT_FOUND');

    const audit = h.plane.db.prepare("SELECT kind, metadata FROM audit_events WHERE kind LIKE 'secret.%' ORDER BY seq").all() as {
      kind: string;
      metadata: string;
    }[];
    expect(audit.map((a) => a.kind)).toEqual(['secret.set', 'secret.set', 'secret.delete']);
    for (const a of audit) {
      expect(JSON.parse(a.metadata).name).toBe('API_KEY');
      expect(a.metadata).not.toContain('first line');
      expect(a.metadata).not.toContain('v2');
    }
  });

  it('keeps a value with newlines exactly, rejects NUL and reserved or malformed names without writing', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const multi = '-----BEGIN KEY-----\nabc\ndef\n-----END KEY-----\n';
    await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/PEM`, headers: owner.headers(), payload: { value: multi } });
    expect((await h.plane.secrets.loadSecrets(project.id)).PEM).toBe(multi);

    const nul = await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/BIN`, headers: owner.headers(), payload: { value: 'a\u0000b' } });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().error.code).toBe('SVC_SECRET_VALUE_INVALID');
    for (const name of ['PATH', 'HOME', 'HOST', 'PORT', 'NODE_ENV', 'TRUST_PROXY', 'SVC_TOKEN', 'NODE_OPTIONS']) {
      const res = await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/${name}`, headers: owner.headers(), payload: { value: 'x' } });
      expect(res.json().error.code, name).toBe('SVC_SECRET_NAME_RESERVED');
    }
    const bad = await h.app.inject({
      method: 'PUT',
      url: `/api/projects/${project.id}/secrets/${encodeURIComponent('A-B')}`,
      headers: owner.headers(),
      payload: { value: 'x' },
    });
    expect(bad.json().error.code).toBe('SVC_SECRET_NAME_INVALID');
    expect((h.plane.db.prepare('SELECT COUNT(*) AS n FROM secrets').get() as { n: number }).n).toBe(1);
  });

  it('needs the secrets permission: viewers and tokens without it are refused', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    const viewer = await invite(h.app, owner, await personalOrg(h.app, owner), 'viewer@example.com', 'viewer');
    const asViewer = await h.app.inject({
      method: 'PUT',
      url: `/api/projects/${project.id}/secrets/API_KEY`,
      headers: viewer.headers(),
      payload: { value: 'x' },
    });
    expect(asViewer.json().error.code).toBe('SVC_FORBIDDEN');
    const readOnly = await createToken(h.app, owner, { name: 'ro', permissions: ['read'] });
    const list = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/secrets`, headers: bearer(readOnly.accessToken) });
    expect(list.json().error.code).toBe('SVC_FORBIDDEN');
  });

  it('a tampered ciphertext fails authentication and nothing is decrypted', async () => {
    const h = await harness();
    const owner = await register(h.app, 'owner@example.com');
    const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
    await h.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/TOKEN`, headers: owner.headers(), payload: { value: 'secret-value' } });
    const row = h.plane.db.prepare('SELECT ciphertext FROM secrets').get() as { ciphertext: Buffer };
    const tampered = Buffer.from(row.ciphertext);
    tampered[tampered.length - 20]! ^= 0x40;
    h.plane.db.prepare('UPDATE secrets SET ciphertext = ?').run(tampered);
    const error = await h.plane.secrets.loadSecrets(project.id).catch((e: unknown) => e);
    expect(isSvcError(error, 'SVC_SECRET_DECRYPT_FAILED')).toBe(true);
    expect(String((error as Error).message)).not.toContain('secret-value');
  });
});

describe('secret values never reach a log line', () => {
  it('logs at trace level while setting, replacing, rejecting and loading secrets without the value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-seclog-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const plane = await buildControlPlane({
      config: testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: 'http://127.0.0.1:7070', logLevel: 'trace' }),
      clock: manualClock(START),
      logger: createLogger({ level: 'trace', destination }),
    });
    cleanup.push(() => plane.close());
    const owner = await register(plane.app, 'owner@example.com');
    const project = await createProject(plane.app, owner, { name: 'Shop', slug: 'shop' });
    const marker = 'ultra-secret-marker-7f3a';
    for (const payload of [{ value: marker }, { value: `${marker}\n2` }, { value: `${marker}\u0000` }, { value: 42 }]) {
      await plane.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/API_KEY`, headers: owner.headers(), payload });
    }
    await plane.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/PATH`, headers: owner.headers(), payload: { value: marker } });
    await plane.secrets.loadSecrets(project.id);
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.join('')).not.toContain(marker);
  });
});

describe('platform master key', () => {
  it('generates <data>/master.key with mode 0600 on first start and reuses it', async () => {
    const h = await harness();
    const keyFile = join(h.dir, 'data', 'master.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(h.plane.secrets.keyring.source).toBe('file');
  });

  it('detects a wrong master key at start (key check value) and refuses a missing key over existing data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-mk-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    const key = randomBytes(32).toString('base64');
    const build = (env: Record<string, string>) =>
      buildControlPlane({
        config: testPlatformConfig({ dataDir, logLevel: 'silent', env }),
        clock: manualClock(START),
        logger: createLogger({ level: 'silent' }),
      });
    const first = await build({ SVC_PLATFORM_MASTER_KEY: key });
    expect(first.secrets.keyring.source).toBe('env');
    await first.close();
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);

    const wrong = await build({ SVC_PLATFORM_MASTER_KEY: randomBytes(32).toString('hex') }).catch((e: unknown) => e);
    expect(isSvcError(wrong, 'SVC_MASTER_KEY_MISMATCH')).toBe(true);
    const missing = await build({}).catch((e: unknown) => e);
    expect(isSvcError(missing, 'SVC_MASTER_KEY_MISSING')).toBe(true);
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    const malformed = await build({ SVC_PLATFORM_MASTER_KEY: 'not-a-key' }).catch((e: unknown) => e);
    expect(isSvcError(malformed, 'SVC_MASTER_KEY_INVALID')).toBe(true);

    const again = await build({ SVC_PLATFORM_MASTER_KEY: Buffer.from(key, 'base64').toString('hex') });
    await again.close();
  });

  it('refuses a key file that others can read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-mk-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'master.key'), randomBytes(32).toString('base64'), { mode: 0o644 });
    const error = await buildControlPlane({ config: testPlatformConfig({ dataDir, logLevel: 'silent' }), logger: createLogger({ level: 'silent' }) }).catch(
      (e: unknown) => e,
    );
    expect(isSvcError(error, 'SVC_MASTER_KEY_INVALID')).toBe(true);
  });
});
