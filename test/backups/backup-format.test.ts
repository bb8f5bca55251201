import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { decryptBackupFile, encryptBackupFile, FRAME_BYTES } from '../../src/backups/backup-format.js';
import { backupsToPrune, isDue, isOverdue, nextDueAfter, shouldReportOverdue } from '../../src/backups/backup-schedule.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-bakfmt-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const header = (backupId = 'bak_1', projectId = 'prj_1') => ({ format: 'svc-backup/1' as const, backupId, projectId, createdAt: 1, hadDatabase: true });

describe('svc-backup/1 file format', () => {
  it('round-trips empty, small and multi-frame inputs; the file never contains the plaintext', async () => {
    const key = randomBytes(32);
    for (const size of [0, 10, FRAME_BYTES, FRAME_BYTES * 2 + 123]) {
      const plain = Buffer.alloc(size, 'svc-plaintext-marker ');
      writeFileSync(join(dir, 'in.db'), plain);
      await encryptBackupFile(join(dir, 'in.db'), join(dir, 'b.svcbak'), key, header());
      if (size > 0) expect(readFileSync(join(dir, 'b.svcbak')).includes(Buffer.from('svc-plaintext-marker'))).toBe(false);
      await decryptBackupFile(join(dir, 'b.svcbak'), join(dir, 'out.db'), key, { backupId: 'bak_1', projectId: 'prj_1' });
      expect(readFileSync(join(dir, 'out.db')).equals(plain)).toBe(true);
    }
  });

  it('a tampered, truncated, extended or foreign file fails authentication and writes nothing', async () => {
    const key = randomBytes(32);
    writeFileSync(join(dir, 'in.db'), randomBytes(FRAME_BYTES + 5000));
    await encryptBackupFile(join(dir, 'in.db'), join(dir, 'b.svcbak'), key, header());
    const good = readFileSync(join(dir, 'b.svcbak'));
    const variants: [string, Buffer][] = [
      ['header byte', Buffer.from(good).fill(0x7b, 20, 21)],
      [
        'middle byte',
        (() => {
          const b = Buffer.from(good);
          b[Math.floor(b.length / 2)]! ^= 1;
          return b;
        })(),
      ],
      [
        'last byte',
        (() => {
          const b = Buffer.from(good);
          b[b.length - 1]! ^= 1;
          return b;
        })(),
      ],
      ['truncated', good.subarray(0, good.length - 40)],
      ['final frame dropped', good.subarray(0, good.length - (4 + 1 + 12 + 16))],
      ['trailing data', Buffer.concat([good, Buffer.from('x')])],
    ];
    for (const [name, bytes] of variants) {
      writeFileSync(join(dir, 'bad.svcbak'), bytes);
      const error = await decryptBackupFile(join(dir, 'bad.svcbak'), join(dir, 'out.db'), key, { backupId: 'bak_1', projectId: 'prj_1' }).catch(
        (e: unknown) => e,
      );
      expect(isSvcError(error, 'SVC_BACKUP_DECRYPT_FAILED'), name).toBe(true);
      expect(existsSync(join(dir, 'out.db')), name).toBe(false);
    }
    const wrongKey = await decryptBackupFile(join(dir, 'b.svcbak'), join(dir, 'out.db'), randomBytes(32), { backupId: 'bak_1', projectId: 'prj_1' }).catch(
      (e: unknown) => e,
    );
    expect(isSvcError(wrongKey, 'SVC_BACKUP_DECRYPT_FAILED')).toBe(true);
    const foreign = await decryptBackupFile(join(dir, 'b.svcbak'), join(dir, 'out.db'), key, { backupId: 'bak_2', projectId: 'prj_1' }).catch(
      (e: unknown) => e,
    );
    expect(isSvcError(foreign, 'SVC_BACKUP_DECRYPT_FAILED')).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes('out.db'))).toEqual([]);
  });
});

describe('backup schedule decisions (pure)', () => {
  const hour = 3_600_000;
  const row = { interval_ms: hour, next_due_at: 10 * hour, last_success_at: 9 * hour, updated_at: 0, overdue_reported_at: null };

  it('is due at next_due_at; retries a failure after at most five minutes', () => {
    expect(isDue(row, 10 * hour - 1)).toBe(false);
    expect(isDue(row, 10 * hour)).toBe(true);
    expect(nextDueAfter(row, 10 * hour, true)).toBe(11 * hour);
    expect(nextDueAfter(row, 10 * hour, false)).toBe(10 * hour + 5 * 60_000);
  });

  it('is overdue after two intervals without success, reported once per episode', () => {
    expect(isOverdue(row, 11 * hour - 1)).toBe(false);
    expect(isOverdue(row, 11 * hour)).toBe(true);
    expect(shouldReportOverdue(row, 11 * hour)).toBe(true);
    expect(shouldReportOverdue({ ...row, overdue_reported_at: 11 * hour }, 12 * hour)).toBe(false);
    expect(isOverdue({ ...row, last_success_at: null, updated_at: 5 * hour }, 6 * hour)).toBe(false);
  });

  it('retention keeps the newest `keep`, drops older than max age, never the newest one', () => {
    const backups = [0, 1, 2, 3, 4].map((i) => ({ id: `b${i}`, created_at: 100 * hour - i * hour }));
    expect(backupsToPrune(backups, 3, 1000 * hour, 100 * hour).map((b) => b.id)).toEqual(['b3', 'b4']);
    expect(backupsToPrune(backups, 10, 1.5 * hour, 100 * hour).map((b) => b.id)).toEqual(['b2', 'b3', 'b4']);
    expect(backupsToPrune(backups, 10, 1, 200 * hour).map((b) => b.id)).toEqual(['b1', 'b2', 'b3', 'b4']);
  });
});
