// CI check: the committed action/dist is exactly what scripts/build-action.ts produces from the
// current sources (rebuilt into a temp dir and compared byte for byte), and the rebuild is
// deterministic. Fix a failure with `npm run build:action`.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAction } from '../../scripts/build-action.js';
import { repoRoot } from '../support/repo-root.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function rebuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-action-dist-'));
  dirs.push(dir);
  await buildAction(dir);
  return dir;
}

describe('action/dist', () => {
  it('is up to date with action/src (run `npm run build:action`)', async () => {
    const fresh = await rebuild();
    const committed = join(repoRoot, 'action', 'dist');
    const names = (await readdir(fresh)).sort();
    expect((await readdir(committed)).sort()).toEqual(names);
    for (const name of names) {
      const [a, b] = await Promise.all([readFile(join(fresh, name)), readFile(join(committed, name))]);
      expect(b.equals(a), `action/dist/${name} is stale: run npm run build:action`).toBe(true);
    }
  }, 60_000);

  it('rebuilds to identical bytes', async () => {
    const [a, b] = [await rebuild(), await rebuild()];
    expect((await readFile(join(a, 'index.js'))).equals(await readFile(join(b, 'index.js')))).toBe(true);
  }, 60_000);
});
