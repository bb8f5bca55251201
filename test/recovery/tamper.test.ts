// Faults in the repository: every flipped byte, dropped, reordered or duplicated entry, a damaged base or
// head, a wrong key and a busy destination make restore fail at the exact sequence, destination untouched.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openRawHost } from './support/raw-host.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

const confirmation = 'restore point in time';
let source: string;
let work: string;
let destination: string;
let destinationBytes: Buffer;

beforeAll(async () => {
  work = tempDir();
  source = join(work, 'repo');
  const host = openRawHost(join(work, 'app.db'));
  host.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const recovery = await openPointInTimeRecovery(host, { directory: source, encryptionKey: testKey, exportIntervalMs: false });
  for (let i = 1; i <= 10; i++) {
    host.write((db) => db.prepare('INSERT INTO t VALUES (?, ?)').run(i, `row ${i}`));
    if (i === 4) await recovery.flush(); // the second flush extends the segment: 1-4 becomes 1-10
  }
  await recovery.close();
  host.close();
  // An existing stopped destination that a failed restore must leave byte-for-byte as it was.
  destination = join(work, 'destination.db');
  const dest = new Database(destination);
  dest.exec("CREATE TABLE original (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO original VALUES (1, 'keep me')");
  dest.close();
  destinationBytes = readFileSync(destination);
});
afterAll(() => cleanupTempDirs());

function copyRepo(): string {
  const copy = join(tempDir(), 'repo');
  cpSync(source, copy, { recursive: true });
  return copy;
}

function segmentPath(repo: string, index: number): string {
  const names = readdirSync(join(repo, 'journal'))
    .filter((n) => n.endsWith('.svcj'))
    .sort();
  return join(repo, 'journal', names[index]!);
}

/** Edit the entry lines of the (single) segment; index i holds sequence i + 1. */
function editLines(repo: string, edit: (lines: string[]) => string[]): void {
  const path = segmentPath(repo, 0);
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  writeFileSync(path, `${edit(lines).join('\n')}\n`);
}

async function failure(repo: string, options: { key?: Buffer; throughSequence?: number; target?: string } = {}): Promise<{ code: string; sequence?: number }> {
  try {
    await restorePointInTime({
      directory: repo,
      encryptionKey: options.key ?? testKey,
      targetPath: options.target ?? destination,
      throughSequence: options.throughSequence ?? 10,
      confirmation,
    });
  } catch (error) {
    const e = error as { code: string; details?: { sequence?: number } };
    return { code: e.code, ...(e.details?.sequence === undefined ? {} : { sequence: e.details.sequence }) };
  } finally {
    expect(readFileSync(options.target ?? destination)).toEqual(destinationBytes);
    expect(readdirSync(work).filter((n) => n.includes('.restore-'))).toEqual([]);
  }
  throw new Error('restore unexpectedly succeeded');
}

describe('restore of a damaged repository', () => {
  it('restores the untouched copy (the baseline the fault cases differ from)', async () => {
    const target = join(tempDir(), 'ok.db');
    const result = await restorePointInTime({ directory: copyRepo(), encryptionKey: testKey, targetPath: target, throughSequence: 10, confirmation });
    expect(result.sequence).toBe(10);
    expect(dumpTables(target).t).toHaveLength(10);
  });

  it('keeps one growing segment and ignores superseded or unpublished segment files', async () => {
    expect(readdirSync(join(source, 'journal'))).toEqual(['0000000000000001-0000000000000010.svcj']);
    const repo = copyRepo();
    const lines = readFileSync(segmentPath(repo, 0), 'utf8').trimEnd().split('\n');
    // Leftovers of interrupted exports: the shorter segment an extension replaced, and a longer one past the head.
    writeFileSync(join(repo, 'journal', '0000000000000001-0000000000000004.svcj'), `${lines.slice(0, 4).join('\n')}\n`);
    writeFileSync(join(repo, 'journal', '0000000000000001-0000000000000012.svcj'), `${[...lines, lines[0]!, lines[1]!].join('\n')}\n`);
    const target = join(tempDir(), 'ok.db');
    expect((await restorePointInTime({ directory: repo, encryptionKey: testKey, targetPath: target, throughSequence: 10, confirmation })).sequence).toBe(10);
  });

  it('fails at the exact entry when any single byte of it is flipped', async () => {
    const line = readFileSync(segmentPath(source, 0), 'utf8').split('\n')[4]!; // entry 5
    const positions = [2, 12, 30, 60, 90, 140, 200, Math.floor(line.length / 2), line.length - 3];
    for (const position of positions) {
      const repo = copyRepo();
      editLines(repo, (lines) => {
        const chars = [...lines[4]!];
        chars[position] = chars[position] === 'A' ? 'B' : 'A';
        return [...lines.slice(0, 4), chars.join(''), ...lines.slice(5)];
      });
      expect(await failure(repo), `byte ${position}`).toEqual({ code: 'SVC_RECOVERY_TAMPERED', sequence: 5 });
    }
  });

  it('fails at the exact sequence for dropped, reordered and duplicated entries', async () => {
    let repo = copyRepo();
    editLines(repo, (lines) => [...lines.slice(0, 4), ...lines.slice(5)]);
    expect(await failure(repo)).toEqual({ code: 'SVC_RECOVERY_GAP', sequence: 5 });
    repo = copyRepo();
    editLines(repo, (lines) => [...lines.slice(0, 4), lines[5]!, lines[4]!, ...lines.slice(6)]);
    expect(await failure(repo)).toEqual({ code: 'SVC_RECOVERY_GAP', sequence: 5 });
    repo = copyRepo();
    editLines(repo, (lines) => [...lines.slice(0, 5), lines[4]!, ...lines.slice(5)]);
    expect(await failure(repo)).toEqual({ code: 'SVC_RECOVERY_CONFLICT', sequence: 5 });
    repo = copyRepo();
    editLines(repo, (lines) => lines.slice(0, -1));
    expect(await failure(repo)).toEqual({ code: 'SVC_RECOVERY_GAP', sequence: 10 });
    // An entry spliced in from another epoch's position fails the hash link.
    repo = copyRepo();
    editLines(repo, (lines) => [...lines.slice(0, 5), lines[1]!.replace('"seq":2', '"seq":6'), ...lines.slice(6)]);
    expect(await failure(repo)).toEqual({ code: 'SVC_RECOVERY_TAMPERED', sequence: 6 });
  });

  it('verifies every exported entry even when restoring an earlier sequence', async () => {
    const repo = copyRepo();
    editLines(repo, (lines) => [...lines.slice(0, 5), ...lines.slice(6)]);
    expect(await failure(repo, { throughSequence: 3 })).toEqual({ code: 'SVC_RECOVERY_GAP', sequence: 6 });
  });

  it('fails at sequence 0 for a damaged base, and on a damaged head or epoch file', async () => {
    let repo = copyRepo();
    const base = join(repo, 'base', 'snapshot.svcb');
    const bytes = readFileSync(base);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0x01;
    writeFileSync(base, bytes);
    expect(await failure(repo, { throughSequence: 2 })).toEqual({ code: 'SVC_RECOVERY_TAMPERED', sequence: 0 });
    repo = copyRepo();
    const headPath = join(repo, 'head.json');
    writeFileSync(headPath, readFileSync(headPath, 'utf8').replace('"exportedThrough": 10', '"exportedThrough": 9'));
    expect((await failure(repo, { throughSequence: 2 })).code).toBe('SVC_RECOVERY_TAMPERED');
    repo = copyRepo();
    const epochPath = join(repo, 'epoch.json');
    writeFileSync(epochPath, readFileSync(epochPath, 'utf8').replace(/"createdAt": \d+/, '"createdAt": 1'));
    expect(await failure(repo, { throughSequence: 2 })).toEqual({ code: 'SVC_RECOVERY_TAMPERED', sequence: 0 });
  });

  it('rejects a wrong key, a missing confirmation and a busy destination', async () => {
    expect((await failure(copyRepo(), { key: Buffer.alloc(32, 9) })).code).toBe('SVC_RECOVERY_KEY_INVALID');
    expect((await failure(copyRepo(), { key: Buffer.alloc(31, 7) })).code).toBe('SVC_RECOVERY_KEY_INVALID');
    await expect(
      restorePointInTime({ directory: copyRepo(), encryptionKey: testKey, targetPath: destination, throughSequence: 1, confirmation: 'yes' }),
    ).rejects.toMatchObject({ code: 'SVC_RECOVERY_CONFIRMATION_REQUIRED' });
    const busy = join(tempDir(), 'busy.db');
    const running = new Database(busy);
    running.pragma('journal_mode = WAL');
    running.exec('CREATE TABLE app (id INTEGER PRIMARY KEY)');
    try {
      const before = readFileSync(busy);
      await expect(
        restorePointInTime({ directory: copyRepo(), encryptionKey: testKey, targetPath: busy, throughSequence: 1, confirmation }),
      ).rejects.toMatchObject({ code: 'SVC_RECOVERY_DESTINATION_BUSY' });
      expect(readFileSync(busy)).toEqual(before);
    } finally {
      running.close();
    }
  });
});
