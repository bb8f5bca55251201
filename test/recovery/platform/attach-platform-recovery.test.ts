// attachPlatformRecovery (@svc-dev/svc/operations): the app-side half. Reads SVC_RECOVERY_DIR/KEY, attaches, and
// on SIGTERM exports everything committed before the process ends (a real child process).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { attachPlatformRecovery, restorePointInTime } from '../../../src/operations.js';
import { openApp } from '../support/recovery-backend.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return isSvcError(error) ? error.code : String(error);
  }
  return undefined;
}

describe('attachPlatformRecovery', () => {
  it('is null without the platform variables and rejects half or bad configuration', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-attach-'));
    const { db } = openApp(join(dir, 'app.db'));
    try {
      expect(await attachPlatformRecovery(db, { env: {}, signals: false })).toBeNull();
      expect(await codeOf(attachPlatformRecovery(db, { env: { SVC_RECOVERY_DIR: join(dir, 'r') }, signals: false }))).toBe('SVC_RECOVERY_OPTIONS_INVALID');
      const short = randomBytes(31).toString('base64');
      expect(await codeOf(attachPlatformRecovery(db, { env: { SVC_RECOVERY_DIR: join(dir, 'r'), SVC_RECOVERY_KEY: short }, signals: false }))).toBe(
        'SVC_RECOVERY_KEY_INVALID',
      );
    } finally {
      db.close();
    }
  });

  it('flushes every committed entry on SIGTERM and then lets the signal end the process', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-attach-'));
    const key = randomBytes(32);
    const directory = join(dir, 'epoch-0001');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'attach-child.ts'), join(dir, 'app.db'), '25'], {
      env: { ...process.env, SVC_RECOVERY_DIR: directory, SVC_RECOVERY_KEY: key.toString('base64') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.once('exit', () => reject(new Error(`child exited early: ${out}`)));
        setTimeout(() => reject(new Error('child did not report in time')), 30_000);
      });
      const status = JSON.parse(line) as { committedThrough: number; exportedThrough: number };
      expect(status.committedThrough).toBe(25);
      expect(status.exportedThrough).toBe(0); // interval export is off: only the signal exports
      const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.kill('SIGTERM');
      expect(await exit).toEqual({ code: null, signal: 'SIGTERM' });
      const head = JSON.parse(await readFile(join(directory, 'head.json'), 'utf8')) as { exportedThrough: number };
      expect(head.exportedThrough).toBe(25);
      const restored = await restorePointInTime({
        directory,
        encryptionKey: key,
        targetPath: join(dir, 'restored.db'),
        throughSequence: 25,
        confirmation: 'restore point in time',
      });
      expect(restored.sequence).toBe(25);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
