// Browser tests need web/dist built from the current sources. Several test files run in parallel and
// `vite build` empties web/dist first, so one build at a time (a mkdir lock) and only when stale.
import { execFile } from 'node:child_process';
import { mkdir, readdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './repo-root.js';

const lockDir = join(repoRoot, 'web', '.build-lock');

async function newestSourceMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestSourceMtime(path) : (await stat(path)).mtimeMs);
  }
  return newest;
}

async function isFresh(): Promise<boolean> {
  const built = await stat(join(repoRoot, 'web', 'dist', 'index.html')).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (built === 0) return false;
  const sources = Math.max(
    await newestSourceMtime(join(repoRoot, 'web', 'src')),
    (await stat(join(repoRoot, 'web', 'index.html'))).mtimeMs,
    (await stat(join(repoRoot, 'web', 'vite.config.ts'))).mtimeMs,
  );
  return built >= sources;
}

/** Build web/dist unless it is newer than every console source; waits for a build another file started. */
export async function ensureConsoleBuilt(timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const locked = await mkdir(lockDir).then(
      () => true,
      () => false,
    );
    if (locked) {
      try {
        if (!(await isFresh())) {
          // NODE_ENV=production as `npm run build:web` has it: vitest sets NODE_ENV=test, under which the Preact
          // preset compiles JSX in development form (source locations on every element, ~90 KB more script).
          await promisify(execFile)(process.execPath, [join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts'], {
            cwd: repoRoot,
            env: { ...process.env, NODE_ENV: 'production' },
            timeout: 120_000,
          });
        }
        return;
      } finally {
        await rmdir(lockDir).catch(() => undefined);
      }
    }
    // A lock left by a killed run would block forever: take it over once it is older than a build can take.
    const age = await stat(lockDir).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 150_000) await rmdir(lockDir).catch(() => undefined);
    if (Date.now() > deadline) throw new Error('timed out waiting for another console build');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
