// A real, tiny filesystem for disk-full tests: a tmpfs mounted on a temp directory (we run as root;
// where mounting is not permitted the caller skips). fill() takes every free block, so the next
// write fails with ENOSPC exactly as on a full disk; free() gives the space back.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFilesystem {
  /** The mount point. */
  dir: string;
  /** Take every free byte (a file named `.filler`). */
  fill(): void;
  /** Remove the filler. */
  free(): void;
  unmount(): void;
}

/** Mount a tmpfs of `size` (e.g. "16m"), or return null when mounting is not permitted here. */
export function mountSmallFilesystem(size: string): SmallFilesystem | null {
  const dir = mkdtempSync(join(tmpdir(), 'svc-smallfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const filler = join(dir, '.filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Large blocks first, then small ones, until not even 512 bytes fit.
        for (const size of [1024 * 1024, 4096, 512]) {
          const block = Buffer.alloc(size);
          try {
            for (;;) writeSync(fd, block);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      // Lazy: a database handle still open in this process must not keep the test from cleaning up.
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
