// Temp directories for recovery tests, removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temp directory (removed by cleanupTempDirs). */
export function tempDir(prefix = 'svc-recovery-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Remove every directory made by tempDir. */
export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fixed 32-byte test key (never a real secret). */
export const testKey = Buffer.alloc(32, 7);
