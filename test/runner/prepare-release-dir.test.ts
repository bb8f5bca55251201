import { execFileSync } from 'node:child_process';
import { existsSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { prepareReleaseDir, removeReleaseDir } from '../../runner/prepare-release-dir.js';

let root: string;
let releaseDir: string;
let platformDir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-prep-'));
  releaseDir = join(root, 'releases', 'rel_1');
  platformDir = join(root, 'platform');
  // A stand-in platform package with the `./sqlite` export the real one provides.
  await mkdir(platformDir, { recursive: true });
  await writeFile(
    join(platformDir, 'package.json'),
    JSON.stringify({ name: '@svc-dev/svc', type: 'module', exports: { './sqlite': './sqlite.js', './package.json': './package.json' } }),
  );
  await writeFile(join(platformDir, 'sqlite.js'), 'export default class Database { static kind = "svc-sqlite"; }\n');
  await mkdir(join(releaseDir, 'dist'), { recursive: true });
  await writeFile(join(releaseDir, 'dist', 'server.mjs'), "import Database from '@svc-dev/svc/sqlite';\nconsole.log(Database.kind);\n");
});
afterEach(async () => {
  await removeReleaseDir(releaseDir);
  await rm(root, { recursive: true, force: true });
});

describe('prepareReleaseDir', () => {
  it('makes the platform importable as `@svc-dev/svc` from the release', async () => {
    await prepareReleaseDir({ releaseDir, platformPackageDir: platformDir });
    expect(readlinkSync(join(releaseDir, 'node_modules', '@svc-dev', 'svc'))).toBe(platformDir);
    const out = execFileSync(process.execPath, ['dist/server.mjs'], { cwd: releaseDir, encoding: 'utf8' });
    expect(out.trim()).toBe('svc-sqlite');
  });

  it('keeps the name `svc` resolving for apps built before the rename', async () => {
    await writeFile(join(releaseDir, 'dist', 'old.mjs'), "import Database from 'svc/sqlite';\nconsole.log(Database.kind);\n");
    await prepareReleaseDir({ releaseDir, platformPackageDir: platformDir });
    expect(readlinkSync(join(releaseDir, 'node_modules', 'svc'))).toBe(platformDir);
    const out = execFileSync(process.execPath, ['dist/old.mjs'], { cwd: releaseDir, encoding: 'utf8' });
    expect(out.trim()).toBe('svc-sqlite');
  });

  it('resolves the real platform package too', async () => {
    const real = resolve(import.meta.dirname, '..', '..');
    await prepareReleaseDir({ releaseDir, platformPackageDir: real });
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "import p from '@svc-dev/svc/package.json' with { type: 'json' }; console.log(p.name)"],
      {
        cwd: releaseDir,
        encoding: 'utf8',
      },
    );
    expect(out.trim()).toBe('@svc-dev/svc');
  });

  it('makes every file and directory read-only', async () => {
    await prepareReleaseDir({ releaseDir, platformPackageDir: platformDir });
    for (const path of [releaseDir, join(releaseDir, 'dist'), join(releaseDir, 'dist', 'server.mjs'), join(releaseDir, 'node_modules')]) {
      expect(statSync(path).mode & 0o222).toBe(0);
    }
    // The platform package itself is not touched through the link.
    expect(statSync(join(platformDir, 'sqlite.js')).mode & 0o200).toBe(0o200);
  });

  it.each(['@svc-dev/svc', 'svc'])('rejects a release that ships its own node_modules/%s', async (name) => {
    await mkdir(join(releaseDir, 'node_modules', name), { recursive: true });
    await expect(prepareReleaseDir({ releaseDir, platformPackageDir: platformDir })).rejects.toSatisfy((e) => isSvcError(e, 'SVC_VALIDATION'));
  });

  it('removeReleaseDir deletes a read-only release', async () => {
    await prepareReleaseDir({ releaseDir, platformPackageDir: platformDir });
    await removeReleaseDir(releaseDir);
    expect(existsSync(releaseDir)).toBe(false);
    expect(existsSync(join(platformDir, 'sqlite.js'))).toBe(true);
  });
});
