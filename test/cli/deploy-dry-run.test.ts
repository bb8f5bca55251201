// Deterministic dry-run artifacts (`svc deploy --dry-run`) and `svc inspect --json`.
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { runCli, tempDir } from './run-cli.js';

interface DryRun {
  dryRun: boolean;
  path: string;
  digest: string;
  size: number;
  fileCount: number;
  totalBytes: number;
}
interface Inspected {
  digest: string;
  size: number;
  protocol: string;
  config: { entry: string; health: { path: string } };
  fileCount: number;
  files: Array<{ path: string; size: number; mode: number; modeOctal: string; sha256: string }>;
}

let root: string;
let cleanup: () => Promise<void>;
let app: string;
let home: string;

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('svc-dry-run-'));
  app = join(root, 'work', 'starter');
  home = join(root, 'home'); // an empty home: no stored login anywhere
  expect((await runCli(['create', 'work/starter'], { cwd: root })).code).toBe(0);
});
afterAll(() => cleanup());

async function dryRun(dir: string, extra: { tty?: boolean } = {}): Promise<DryRun> {
  const run = await runCli(['deploy', '--dry-run', '--json'], { cwd: dir, home, env: { SVC_TOKEN: undefined, SVC_SERVER: undefined }, ...extra });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<DryRun>();
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

describe('svc create → doctor → deploy --dry-run → inspect', () => {
  it('doctor passes on a fresh starter app (entry only warned as not built yet)', async () => {
    const run = await runCli(['doctor', '--json'], { cwd: app });
    expect(run.code, run.stdout).toBe(0);
    const report = run.json<{ ok: boolean; checks: Array<{ id: string; status: string }> }>();
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(report.checks.find((c) => c.id === 'entry')?.status).toBe('warn');
  });

  it('writes .svc/artifacts/<digest>.svc.gz and gives byte-identical artifacts on a second run', async () => {
    const first = await dryRun(app);
    expect(first).toMatchObject({ dryRun: true, fileCount: 2 });
    expect(first.path).toBe(join('.svc', 'artifacts', `${first.digest}.svc.gz`));
    const bytes = await readFile(join(app, first.path));
    expect(bytes.length).toBe(first.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(first.digest.replace(/^sha256[:-]/, ''));

    const second = await dryRun(app);
    expect(second.digest).toBe(first.digest);
    expect(await readFile(join(app, second.path))).toEqual(bytes);
  });

  it('gives the same digest from a copy of the app in another directory', async () => {
    const { digest } = await dryRun(app);
    const copy = join(root, 'elsewhere', 'deeper', 'renamed-copy');
    await cp(app, copy, { recursive: true });
    await rm(join(copy, 'dist'), { recursive: true, force: true });
    await rm(join(copy, '.svc'), { recursive: true, force: true });
    expect((await dryRun(copy)).digest).toBe(digest);
  });

  it('gives the same digest after shuffling every file mtime', async () => {
    const { digest } = await dryRun(app);
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const file of await walk(app)) {
      const when = new Date(Date.UTC(2001, 0, 1) + Math.floor(random() * 20 * 365 * 86_400_000));
      await utimes(file, when, when);
    }
    // Build output too: pack without rebuilding so the shuffled dist mtimes are what gets packed.
    const run = await runCli(['deploy', '--dry-run', '--no-build', '--json'], { cwd: app, home });
    expect(run.json<DryRun>().digest).toBe(digest);
    expect((await dryRun(app)).digest).toBe(digest);
  });

  it('doctor passes every check once the app is built (global --json before the command works too)', async () => {
    const run = await runCli(['--json', 'doctor'], { cwd: app });
    const report = run.json<{ ok: boolean; checks: Array<{ id: string; status: string }> }>();
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(run.code).toBe(0);
  });

  it('inspect --json lists the sorted files with their sizes, modes and SHA-256 digests, and no contents', async () => {
    const { digest, path, size } = await dryRun(app);
    const run = await runCli(['inspect', path, '--json'], { cwd: app });
    expect(run.code, run.stdout).toBe(0);
    const inspected = run.json<Inspected>();
    expect(inspected).toMatchObject({
      digest,
      size,
      protocol: 'svc-deploy/1',
      fileCount: 2,
      config: { entry: 'dist/server.mjs', health: { path: '/healthz' } },
    });
    const paths = inspected.files.map((file) => file.path);
    expect(paths).toEqual(['dist/server.mjs', 'migrations/0001_init.sql']);
    expect([...paths].sort()).toEqual(paths);
    for (const file of inspected.files) {
      const content = await readFile(join(app, file.path));
      expect(file).toEqual({
        path: file.path,
        size: content.length,
        mode: 0o100644,
        modeOctal: '100644',
        sha256: createHash('sha256').update(content).digest('hex'),
      });
    }
    expect(run.stdout).not.toContain('content');
  });

  it('inspect prints a human summary without file contents, and --cat prints one file', async () => {
    const { digest, path } = await dryRun(app);
    const human = await runCli(['inspect', path], { cwd: app });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(digest);
    expect(human.stdout).toContain('svc-deploy/1');
    expect(human.stdout).toMatch(/100644\s+\d+\s+[0-9a-f]{64}\s+dist\/server\.mjs/);
    expect(human.stdout).not.toContain('createServer');
    const cat = await runCli(['inspect', path, '--cat', 'migrations/0001_init.sql'], { cwd: app });
    expect(cat.stdout).toBe(await readFile(join(app, 'migrations', '0001_init.sql'), 'utf8'));
  });

  it('inspect rejects a damaged artifact with an artifact code and a missing one with SVC_NOT_FOUND', async () => {
    const { path } = await dryRun(app);
    const bytes = await readFile(join(app, path));
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
    await writeFile(join(root, 'damaged.svc.gz'), bytes);
    const damaged = await runCli(['inspect', join(root, 'damaged.svc.gz'), '--json'], { cwd: app });
    const { error } = damaged.json<{ error: { code: string } }>();
    expect(error.code).toMatch(/^SVC_ARTIFACT_/);
    expect(damaged.code).toBe(65);
    // A file named after a digest is checked against that name.
    await writeFile(join(root, `${'0'.repeat(64)}.svc.gz`), await readFile(join(app, path)));
    const renamed = await runCli(['inspect', join(root, `${'0'.repeat(64)}.svc.gz`), '--json'], { cwd: app });
    expect(renamed.json()).toMatchObject({ error: { code: 'SVC_ARTIFACT_DIGEST_MISMATCH' } });
    const missing = await runCli(['inspect', 'nope.svc.gz', '--json'], { cwd: app });
    expect(missing.json()).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    expect(missing.code).toBe(exitCodeFor(new SvcError('SVC_NOT_FOUND')));
  });

  it('prints digest, size and file count in human mode, with progress on a TTY', async () => {
    const run = await runCli(['deploy', '--dry-run'], { cwd: app, home, tty: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Digest\s+\S+/);
    expect(run.stdout).toMatch(/Size\s+.*gzip/);
    expect(run.stdout).toMatch(/Files\s+2 /);
    expect(run.stderr).toContain('Packing');
    const plain = await runCli(['deploy', '--dry-run'], { cwd: app, home, tty: false });
    expect(plain.stderr).not.toContain('\x1b[2K');
  });
});
