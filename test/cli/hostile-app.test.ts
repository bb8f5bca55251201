// Apps that must not deploy: doctor names the problem and dry-run fails with the artifact's own code.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError, type ErrorCode } from '../../src/core/errors.js';
import { runCli, tempDir } from './run-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A prebuilt app (dist/ checked in) whose build.command is a harmless no-op. */
async function prebuiltApp(config: Record<string, unknown> = {}): Promise<string> {
  const { dir, cleanup } = await tempDir('svc-hostile-');
  cleanups.push(cleanup);
  await mkdir(join(dir, 'dist'));
  await mkdir(join(dir, 'migrations'));
  await writeFile(join(dir, 'dist', 'server.mjs'), 'console.log("hi");\n');
  await writeFile(join(dir, 'migrations', '0001_init.sql'), 'CREATE TABLE t (id INTEGER);\n');
  await writeFile(join(dir, '.gitignore'), '.svc/\n');
  await writeFile(
    join(dir, 'svc.deploy.json'),
    JSON.stringify({ version: 1, entry: 'dist/server.mjs', include: ['dist'], build: { command: [process.execPath, '-e', '0'] }, ...config }),
  );
  return dir;
}

interface Report {
  ok: boolean;
  checks: Array<{ id: string; status: string; code?: string }>;
  error?: { code: string };
}

async function expectRejected(dir: string, code: ErrorCode, failingCheck: string): Promise<void> {
  const doctor = await runCli(['doctor', '--json'], { cwd: dir });
  const report = doctor.json<Report>();
  expect(report.ok).toBe(false);
  expect(report.checks.find((c) => c.id === failingCheck)).toMatchObject({ status: 'fail', code });
  expect(report.error?.code).toBe('SVC_CLI_DOCTOR_FAILED');
  expect(doctor.code).toBe(exitCodeFor(new SvcError('SVC_CLI_DOCTOR_FAILED')));

  const deploy = await runCli(['deploy', '--dry-run', '--json'], { cwd: dir });
  expect(deploy.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code, message: expect.any(String) });
  expect(deploy.code).toBe(exitCodeFor(new SvcError(code)));
}

describe('hostile apps', () => {
  it('the prebuilt baseline app is accepted (so the cases below fail for their own reason)', async () => {
    const dir = await prebuiltApp();
    expect((await runCli(['doctor', '--json'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['deploy', '--dry-run', '--json'], { cwd: dir })).code).toBe(0);
  });

  it('rejects a symbolic link in an included path', async () => {
    const dir = await prebuiltApp();
    await symlink('/etc/passwd', join(dir, 'dist', 'passwd'));
    await expectRejected(dir, 'SVC_ARTIFACT_SYMLINK', 'files');
  });

  it('rejects a .env file in an included path', async () => {
    const dir = await prebuiltApp();
    await writeFile(join(dir, 'dist', '.env'), 'SECRET=hunter2\n');
    await expectRejected(dir, 'SVC_ARTIFACT_FORBIDDEN_FILE', 'files');
  });

  it('rejects a private key in the migrations directory', async () => {
    const dir = await prebuiltApp();
    await writeFile(join(dir, 'migrations', 'id_rsa'), 'KEY');
    await expectRejected(dir, 'SVC_ARTIFACT_FORBIDDEN_FILE', 'files');
  });

  it('rejects a reserved env name in the configuration', async () => {
    const dir = await prebuiltApp({ env: { PORT: '1' } });
    await expectRejected(dir, 'SVC_CONFIG_RESERVED_ENV', 'config');
  });

  it('reports a failing build.command as SVC_COMMAND_FAILED and a missing one as SVC_COMMAND_NOT_FOUND', async () => {
    const failing = await prebuiltApp({ build: { command: [process.execPath, '-e', 'console.error("compile error"); process.exit(3)'] } });
    const run = await runCli(['deploy', '--dry-run', '--json'], { cwd: failing });
    const { error } = run.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('SVC_COMMAND_FAILED');
    expect(error.message).toContain('compile error');
    expect(run.code).toBe(65);

    const missing = await prebuiltApp({ build: { command: ['svc-no-such-tool-here', 'build'] } });
    expect((await runCli(['deploy', '--dry-run', '--json'], { cwd: missing })).json()).toMatchObject({ error: { code: 'SVC_COMMAND_NOT_FOUND' } });
    const doctor = (await runCli(['doctor', '--json'], { cwd: missing })).json<Report>();
    expect(doctor.checks.find((c) => c.id === 'build')).toMatchObject({ status: 'fail', code: 'SVC_COMMAND_NOT_FOUND' });
  });

  it('doctor flags badly named migrations and explains in human output', async () => {
    const dir = await prebuiltApp();
    await writeFile(join(dir, 'migrations', 'init.sql'), 'SELECT 1;\n');
    const run = await runCli(['doctor'], { cwd: dir });
    expect(run.code).toBe(65);
    expect(run.stdout).toMatch(/✗ Migrations\s+init\.sql does not match/);
    expect(run.stdout).toContain('→ ');
    expect(run.stderr).toBe('');
  });
});
