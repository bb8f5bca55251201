import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { outputPathFor } from '../../cli/build-tree.js';
import { svcInvocation } from '../../cli/svc-invocation.js';
import { runCli, tempDir } from './run-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
async function temp(): Promise<string> {
  const t = await tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('svc create', () => {
  it('creates a starter app with svc.deploy.json, a health route and one migration', async () => {
    const dir = await temp();
    const run = await runCli(['create', 'my-app', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const body = run.json<{ name: string; path: string; files: string[] }>();
    expect(body.name).toBe('my-app');
    expect(body.files).toEqual(['.gitignore', 'README.md', 'migrations/0001_init.sql', 'package.json', 'src/server.mjs', 'svc.deploy.json']);
    const config = JSON.parse(await readFile(join(dir, 'my-app', 'svc.deploy.json'), 'utf8'));
    expect(config).toMatchObject({ version: 1, entry: 'dist/server.mjs', health: { path: '/healthz' } });
    const server = await readFile(join(dir, 'my-app', 'src', 'server.mjs'), 'utf8');
    expect(server).toContain("'/healthz'");
    expect(server).not.toContain('{{name}}');
    expect(JSON.parse(await readFile(join(dir, 'my-app', 'package.json'), 'utf8')).name).toBe('my-app');
    // Nothing but the app itself is left in the parent (no temp directories).
    expect(await readdir(dir)).toEqual(['my-app']);
  });

  it('refuses a non-empty target with SVC_CLI_TARGET_EXISTS and exit 73, writing nothing', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'taken'));
    await writeFile(join(dir, 'taken', 'keep.txt'), 'mine');
    const run = await runCli(['create', 'taken', '--json'], { cwd: dir });
    expect(run.json()).toEqual({ error: { code: 'SVC_CLI_TARGET_EXISTS', message: expect.any(String) } });
    expect(run.code).toBe(exitCodeFor(new SvcError('SVC_CLI_TARGET_EXISTS')));
    expect(run.code).toBe(73);
    expect(await readdir(join(dir, 'taken'))).toEqual(['keep.txt']);
  });

  it('fills an existing empty directory in place (e.g. `svc create .` inside it)', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'here'));
    const run = await runCli(['create', '.', '--json'], { cwd: join(dir, 'here') });
    expect(run.code, run.stdout).toBe(0);
    expect(run.json()).toMatchObject({ name: 'here' });
    expect((await readdir(join(dir, 'here'))).sort()).toEqual(['.gitignore', 'README.md', 'migrations', 'package.json', 'src', 'svc.deploy.json']);
    expect(await readdir(dir)).toEqual(['here']);
  });

  it('ends with next steps that run as printed: `svc` when one is on PATH, else npm exec of the scoped package', async () => {
    const dir = await temp();
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'svc'), '#!/bin/sh\n');
    await chmod(join(bin, 'svc'), 0o755);
    const onPath = await runCli(['create', 'one'], { cwd: dir, env: { PATH: bin } });
    expect(onPath.code, onPath.stderr).toBe(0);
    expect(onPath.stdout).toMatch(/^Next:\n {2}cd one\n {2}svc doctor {12}# check the app\n {2}svc deploy --dry-run /m);
    const without = await runCli(['create', 'two'], { cwd: dir, env: { PATH: join(dir, 'nowhere') } });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stdout).toContain('  npm exec --package=@svc-dev/svc -- svc doctor ');
    expect(without.stdout).toContain('npm install -g @svc-dev/svc');
    expect(svcInvocation(['/a', '/b'].join(delimiter), (path) => path === '/b/svc')).toBe('svc');
    expect(svcInvocation(undefined)).toBe('npm exec --package=@svc-dev/svc -- svc');
  });

  it('rejects an invalid name in human mode as `error CODE: message` on stderr', async () => {
    const dir = await temp();
    const run = await runCli(['create', 'Bad Name'], { cwd: dir });
    expect(run.code).toBe(65);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error SVC_CLI_INVALID_NAME: /);
    expect(run.stderr).toContain('hint');
  });
});

describe('svc build', () => {
  it('maps TypeScript outputs and leaves other files alone', () => {
    expect(outputPathFor('a/b.ts')).toEqual({ path: 'a/b.js', transpile: true });
    expect(outputPathFor('b.mts')).toEqual({ path: 'b.mjs', transpile: true });
    expect(outputPathFor('b.cts')).toEqual({ path: 'b.cjs', transpile: true });
    expect(outputPathFor('b.mjs')).toEqual({ path: 'b.mjs', transpile: false });
  });

  it('copies the tree, transpiles .ts/.mts, skips dotfiles, node_modules and .d.ts, and replaces dist', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'src', 'lib'), { recursive: true });
    await mkdir(join(dir, 'src', 'node_modules', 'x'), { recursive: true });
    await writeFile(join(dir, 'src', 'server.ts'), "import { add } from './lib/add.mjs';\nconst n: number = add(1, 2);\nconsole.log(n);\n");
    await writeFile(join(dir, 'src', 'lib', 'add.mts'), 'export function add(a: number, b: number): number { return a + b; }\n');
    await writeFile(join(dir, 'src', 'lib', 'types.d.ts'), 'export type X = 1;\n');
    await writeFile(join(dir, 'src', 'page.html'), '<p>hi</p>\n');
    await writeFile(join(dir, 'src', 'run.sh'), '#!/bin/sh\n');
    await chmod(join(dir, 'src', 'run.sh'), 0o755);
    await writeFile(join(dir, 'src', '.env'), 'SECRET=1\n');
    await writeFile(join(dir, 'src', 'node_modules', 'x', 'i.js'), '');
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'stale.js'), 'old');

    const run = await runCli(['build', 'src', 'dist', '--json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toEqual({
      src: 'src',
      dist: 'dist',
      files: ['lib/add.mjs', 'page.html', 'run.sh', 'server.js'],
      transpiled: 2,
      bytes: expect.any(Number),
    });
    const server = await readFile(join(dir, 'dist', 'server.js'), 'utf8');
    expect(server).toContain('./lib/add.mjs');
    expect(server).not.toContain(': number');
    // The output runs: dist/server.js imports the transpiled dist/lib/add.mjs.
    await writeFile(join(dir, 'dist', 'package.json'), '{"type":"module"}');
    const ran = spawnSync(process.execPath, [join(dir, 'dist', 'server.js')], { encoding: 'utf8' });
    expect(ran.stdout.trim()).toBe('3');
    expect(await readFile(join(dir, 'dist', 'page.html'), 'utf8')).toBe('<p>hi</p>\n');
    expect((await stat(join(dir, 'dist', 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readdir(join(dir, 'dist'))).toEqual(['lib', 'package.json', 'page.html', 'run.sh', 'server.js']);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['dist', 'src']));
    expect((await readdir(dir)).length).toBe(2);
  });

  it('produces byte-identical output on a second run', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'a.ts'), 'export const a: string = "x";\n');
    await runCli(['build', 'src', 'dist'], { cwd: dir });
    const first = await readFile(join(dir, 'dist', 'a.js'));
    await runCli(['build', 'src', 'dist'], { cwd: dir });
    expect(await readFile(join(dir, 'dist', 'a.js'))).toEqual(first);
  });

  it('fails with SVC_CLI_BUILD_TRANSFORM naming the file and line, keeping the old dist', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'src'));
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'old.js'), 'old');
    await writeFile(join(dir, 'src', 'bad.ts'), 'const x = ;\n');
    const run = await runCli(['build', 'src', 'dist', '--json'], { cwd: dir });
    expect(run.code).toBe(65);
    const { error } = run.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('SVC_CLI_BUILD_TRANSFORM');
    expect(error.message).toContain('bad.ts:1:');
    expect(await readdir(join(dir, 'dist'))).toEqual(['old.js']);
  });

  it('refuses symlinks in the source and overlapping directories', async () => {
    const dir = await temp();
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'target.txt'), 'x');
    await symlink(join(dir, 'target.txt'), join(dir, 'src', 'link.txt'));
    expect((await runCli(['build', 'src', 'dist', '--json'], { cwd: dir })).json()).toMatchObject({ error: { code: 'SVC_CLI_BUILD_UNSUPPORTED_FILE' } });
    expect((await runCli(['build', 'src', '.', '--json'], { cwd: dir })).json()).toMatchObject({ error: { code: 'SVC_CLI_BUILD_PATHS' } });
    expect((await runCli(['build', 'src', 'src', '--json'], { cwd: dir })).json()).toMatchObject({ error: { code: 'SVC_CLI_BUILD_PATHS' } });
    expect((await runCli(['build', 'missing', 'dist', '--json'], { cwd: dir })).json()).toMatchObject({ error: { code: 'SVC_CLI_BUILD_PATHS' } });
  });
});
