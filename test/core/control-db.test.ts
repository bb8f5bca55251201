import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openControlDb } from '../../src/core/control-db.js';

describe('openControlDb', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('creates a private WAL database with synchronous=FULL and foreign keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-db-'));
    dirs.push(dir);
    const path = join(dir, 'nested', 'control.db');
    const db = openControlDb(path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    } finally {
      db.close();
    }
  });
});
