// Master-key rotation: secrets of both scopes and backup data keys re-encrypted in one transaction;
// the old key is refused afterwards; an interrupted file rotation is finished at the next start.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { isSvcError } from '../../src/core/errors.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { encryptBackupFile } from '../../src/backups/backup-format.js';
import { insertBackup, wrapDataKey } from '../../src/backups/backup-store.js';
import { decryptToScratch } from '../../src/backups/backup-service.js';
import { rewrapBackupKeys } from '../../src/backups/index.js';
import { rotateMasterKey } from '../../src/secrets/index.js';
import { openControlDb } from '../../src/core/control-db.js';
import { createProject, register, START } from '../platform/harness.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function build(dataDir: string, env: Record<string, string> = {}): Promise<ControlPlane> {
  return buildControlPlane({
    config: testPlatformConfig({ dataDir, publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent', env }),
    clock: manualClock(START),
    logger: createLogger({ level: 'silent' }),
  });
}

/** A plane with two production secrets, a preview secret of the same name as one of them, and one backup row (file encrypted under its own data key). */
async function seed(dataDir: string, env: Record<string, string>): Promise<{ projectId: string; backupId: string; plain: Buffer }> {
  const plane = await build(dataDir, env);
  try {
    const owner = await register(plane.app, 'owner@example.com');
    const project = await createProject(plane.app, owner, { name: 'Shop', slug: 'shop' });
    for (const [name, value] of [
      ['API_KEY', 'alpha\nbeta'],
      ['DB_URL', 'postgres://x'],
    ]) {
      const res = await plane.app.inject({ method: 'PUT', url: `/api/projects/${project.id}/secrets/${name}`, headers: owner.headers(), payload: { value } });
      expect(res.statusCode).toBe(201);
    }
    const preview = await plane.app.inject({
      method: 'PUT',
      url: `/api/projects/${project.id}/secrets/API_KEY?scope=preview`,
      headers: owner.headers(),
      payload: { value: 'preview\ngamma' },
    });
    expect(preview.statusCode).toBe(201);
    const plain = randomBytes(5000);
    const src = join(dataDir, 'plain.db');
    writeFileSync(src, plain);
    const backupId = 'bak_rotation';
    const path = join(dataDir, 'projects', project.id, 'backups', `${backupId}.svcbak`);
    mkdirSync(join(dataDir, 'projects', project.id, 'backups'), { recursive: true });
    const dataKey = randomBytes(32);
    const size = await encryptBackupFile(src, path, dataKey, { format: 'svc-backup/1', backupId, projectId: project.id, createdAt: START, hadDatabase: true });
    insertBackup(plane.context, {
      id: backupId,
      project_id: project.id,
      kind: 'manual',
      path,
      size_bytes: size,
      database_bytes: plain.length,
      had_database: 1,
      wrapped_key: wrapDataKey(plane.secrets.keyring, project.id, backupId, dataKey),
      created_by_type: 'system',
      created_by_id: 'test',
      created_by_name: null,
      created_at: START,
    });
    return { projectId: project.id, backupId, plain };
  } finally {
    await plane.close();
  }
}

async function readBack(
  plane: ControlPlane,
  seeded: { projectId: string; backupId: string },
): Promise<{ secrets: Record<string, string>; preview: Record<string, string>; backup: Buffer }> {
  const row = plane.db.prepare('SELECT * FROM backups WHERE id = ?').get(seeded.backupId) as Parameters<typeof decryptToScratch>[1];
  const scratch = await decryptToScratch(plane.backups.deps, row);
  return {
    secrets: await plane.secrets.loadSecrets(seeded.projectId),
    preview: await plane.secrets.loadSecrets(seeded.projectId, 'preview'),
    backup: readFileSync(scratch),
  };
}

describe('master-key rotation', () => {
  it('environment key: re-encrypts every secret and backup key in one transaction; old key refused afterwards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-rot-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('hex');
    const seeded = await seed(dataDir, { SVC_PLATFORM_MASTER_KEY: oldKey });
    const before = (
      openControlDb(join(dataDir, 'control.db')).prepare('SELECT ciphertext FROM secrets ORDER BY name, scope').all() as { ciphertext: Buffer }[]
    ).map((r) => r.ciphertext.toString('hex'));
    expect(before).toHaveLength(3);

    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'src/secrets/rotate-master-key-main.ts'), '--data', dataDir], {
      cwd: ROOT,
      env: { ...process.env, SVC_PLATFORM_MASTER_KEY: oldKey, SVC_NEW_PLATFORM_MASTER_KEY: newKey },
    });
    expect(stdout).toContain('3 secrets re-encrypted, 1 backup and recovery keys re-wrapped');

    const stale = await build(dataDir, { SVC_PLATFORM_MASTER_KEY: oldKey }).catch((e: unknown) => e);
    expect(isSvcError(stale, 'SVC_MASTER_KEY_MISMATCH')).toBe(true);
    const plane = await build(dataDir, { SVC_PLATFORM_MASTER_KEY: newKey });
    try {
      const after = (plane.db.prepare('SELECT ciphertext FROM secrets ORDER BY name, scope').all() as { ciphertext: Buffer }[]).map((r) =>
        r.ciphertext.toString('hex'),
      );
      expect(after.some((c, i) => c === before[i])).toBe(false);
      const read = await readBack(plane, seeded);
      expect(read.secrets).toEqual({ API_KEY: 'alpha\nbeta', DB_URL: 'postgres://x' });
      expect(read.preview).toEqual({ API_KEY: 'preview\ngamma' });
      expect(read.backup.equals(seeded.plain)).toBe(true);
    } finally {
      await plane.close();
    }
  });

  it('key file: a failure inside the transaction changes nothing; an interrupted rename is finished at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-rot-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const seeded = await seed(dataDir, {});
    const oldFile = readFileSync(join(dataDir, 'master.key'), 'utf8');

    const db = openControlDb(join(dataDir, 'control.db'));
    const failing = await rotateMasterKey({
      db,
      dataDir,
      env: {},
      rewrappers: [
        rewrapBackupKeys,
        () => {
          throw new Error('disk on fire');
        },
      ],
      now: START,
    }).catch((e: unknown) => e);
    expect((failing as Error).message).toBe('disk on fire');
    expect(readFileSync(join(dataDir, 'master.key'), 'utf8')).toBe(oldFile);
    expect(existsSync(join(dataDir, 'master.key.next'))).toBe(false);

    // Simulate a crash after the commit, before the rename: master.key.next holds the new key.
    const { renameSync } = await import('node:fs');
    const result = await rotateMasterKey({ db, dataDir, env: {}, rewrappers: [rewrapBackupKeys], now: START });
    db.close();
    expect(result).toMatchObject({ secrets: 3, rewrapped: 1, source: 'file' });
    const newFile = readFileSync(join(dataDir, 'master.key'), 'utf8');
    expect(newFile).not.toBe(oldFile);
    renameSync(join(dataDir, 'master.key'), join(dataDir, 'master.key.next'));
    writeFileSync(join(dataDir, 'master.key'), oldFile, { mode: 0o600 });

    const plane = await build(dataDir);
    try {
      expect(readFileSync(join(dataDir, 'master.key'), 'utf8')).toBe(newFile);
      const read = await readBack(plane, seeded);
      expect(read.secrets.API_KEY).toBe('alpha\nbeta');
      expect(read.preview).toEqual({ API_KEY: 'preview\ngamma' });
      expect(read.backup.equals(seeded.plain)).toBe(true);
    } finally {
      await plane.close();
    }
  });
});
