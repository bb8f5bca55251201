// `svc deploy` against a scripted control plane: first-deploy linking, the upload headers and body,
// the private attempt record kept after an ambiguous failure and reused by the next identical command,
// definite outcomes deleting it, expiry, progress and exit codes.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { manualClock } from '../../src/core/clock.js';
import { IDEMPOTENCY_KEY_PATTERN, UPLOAD_MEDIA_TYPE } from '../../src/releases/contract.js';
import { runCli, tempDir, type CliRun } from '../cli/run-cli.js';
import { FAKE_TOKEN, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane.js';

let fake: FakeControlPlane;
let dir: string;
let cleanup: () => Promise<void>;
let app: string;

beforeEach(async () => {
  fake = await startFakeControlPlane();
  ({ dir, cleanup } = await tempDir('svc-cli-deploy-'));
  app = join(dir, 'my-site');
  await mkdir(join(app, 'dist'), { recursive: true });
  await writeFile(join(app, 'svc.deploy.json'), JSON.stringify({ version: 1, entry: 'dist/server.mjs', include: ['dist'] }));
  await writeFile(join(app, 'dist', 'server.mjs'), 'console.log("hi");\n');
});

afterEach(async () => {
  await fake.close();
  await cleanup();
});

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));

function deploy(args: string[] = [], extra: { tty?: boolean; now?: number } = {}): Promise<CliRun> {
  if (extra.now !== undefined) clock.set(extra.now);
  return runCli(['deploy', '--no-build', '--json', ...args], {
    cwd: app,
    home: dir,
    tty: extra.tty,
    clock,
    env: { SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url },
  });
}

async function attemptFiles(): Promise<string[]> {
  return readdir(join(app, '.svc', 'attempts')).catch(() => []);
}

describe('svc deploy (upload)', () => {
  it('creates and links a project on the first deploy, then uploads the packed artifact with digest and key', async () => {
    const run = await deploy(['--slug', 'my-site-1', '--org', 'org_team']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const out = run.json<{
      project: { id: string; slug: string; created: boolean };
      release: { id: string; status: string };
      created: boolean;
      resumed: boolean;
      digest: string;
    }>();
    expect(out).toMatchObject({ project: { slug: 'my-site-1', created: true }, release: { status: 'active' }, created: true, resumed: false });
    expect(fake.projects).toHaveLength(1);
    expect(fake.projects[0]).toMatchObject({ name: 'my-site', slug: 'my-site-1', organizationId: 'org_team' });
    const link = JSON.parse(await readFile(join(app, '.svc', 'project.json'), 'utf8')) as Record<string, unknown>;
    expect(link).toMatchObject({ version: 1, projectId: out.project.id, slug: 'my-site-1', server: fake.url });

    const [upload] = fake.uploads;
    expect(upload?.contentType).toBe(UPLOAD_MEDIA_TYPE);
    expect(upload?.digest).toBe(out.digest);
    expect(upload?.bodyDigest).toBe(out.digest);
    expect(upload?.contentLength).toBe(String(upload?.bytes));
    expect(upload?.key).toMatch(IDEMPOTENCY_KEY_PATTERN);
    // What was uploaded is exactly what --dry-run writes.
    const local = await readFile(join(app, '.svc', 'artifacts', `${out.digest}.svc.gz`));
    expect(local.length).toBe(upload?.bytes);
    expect(await attemptFiles()).toEqual([]);

    // The second deploy uses the link (no new project) and a fresh key.
    const again = await deploy(['--slug', 'ignored']);
    expect(again.code).toBe(0);
    expect(fake.projects).toHaveLength(1);
    expect(fake.uploads[1]?.key).not.toBe(upload?.key);
    expect(again.stderr).toBe(''); // --json: notes are silent
  });

  it('keeps the attempt record after a dropped connection and reuses its key: one release, never two', async () => {
    fake.script.push({ kind: 'drop' });
    const first = await deploy(['--slug', 'drop-site']);
    expect(first.json()).toMatchObject({ error: { code: 'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN', details: { cause: 'SVC_NETWORK' } } });
    expect(first.code).toBe(exitCodeFor(new SvcError('SVC_CLI_UPLOAD_OUTCOME_UNKNOWN')));
    expect(first.code).toBe(75);
    expect(fake.releases).toHaveLength(1); // the server did create it; the client could not know

    const files = await attemptFiles();
    expect(files).toHaveLength(1);
    const recordPath = join(app, '.svc', 'attempts', files[0] as string);
    expect((await stat(recordPath)).mode & 0o777).toBe(0o600);
    expect((await stat(join(app, '.svc', 'attempts'))).mode & 0o777).toBe(0o700);
    const record = JSON.parse(await readFile(recordPath, 'utf8')) as { idempotencyKey: string; digest: string; projectId: string };
    expect(record.idempotencyKey).toBe(fake.uploads[0]?.key);
    expect(files[0]).toBe(`${record.digest}.json`);

    const second = await deploy([], { now: clock.now() + 60 * 60 * 1000 });
    expect(second.code, second.stdout).toBe(0);
    expect(second.json()).toMatchObject({ release: { id: fake.releases[0]?.id, status: 'active' }, created: false, resumed: true });
    expect(fake.uploads.map((u) => u.key)).toEqual([record.idempotencyKey, record.idempotencyKey]);
    expect(fake.releases).toHaveLength(1);
    expect(await attemptFiles()).toEqual([]); // definite outcome: record deleted
  });

  it('says how to resume in human mode and shows byte progress on a TTY', async () => {
    // Incompressible content so the upload takes more than one 64 kB chunk.
    await writeFile(join(app, 'dist', 'blob.bin'), randomBytes(300_000));
    fake.script.push({ kind: 'drop' });
    const first = await runCli(['deploy', '--no-build', '--slug', 'tty-site'], {
      cwd: app,
      home: dir,
      tty: true,
      clock,
      env: { NO_COLOR: '1', SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url },
    });
    expect(first.code).toBe(75);
    expect(first.stderr).toMatch(/Uploading \d+\.\d KiB \/ \d+\.\d KiB/);
    expect(first.stderr).toContain('error SVC_CLI_UPLOAD_OUTCOME_UNKNOWN');
    expect(first.stderr).toContain('.svc/attempts/');
    const second = await runCli(['deploy', '--no-build'], {
      cwd: app,
      home: dir,
      tty: true,
      clock,
      env: { NO_COLOR: '1', SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url },
    });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('Resuming the upload attempt');
    expect(second.stdout).toContain(`Release ${fake.releases[0]?.id} is active (replayed`);
    expect(second.stdout).toContain('http://tty-site.localhost:7070');
  });

  it('ignores and prunes a record older than 24 hours (a fresh key, a new release)', async () => {
    fake.script.push({ kind: 'drop' });
    await deploy(['--slug', 'old-site']);
    expect(await attemptFiles()).toHaveLength(1);
    const later = await deploy([], { now: clock.now() + 24 * 60 * 60 * 1000 + 1 });
    expect(later.code).toBe(0);
    expect(later.json()).toMatchObject({ created: true, resumed: false });
    expect(fake.uploads[1]?.key).not.toBe(fake.uploads[0]?.key);
    expect(fake.releases).toHaveLength(2);
    expect(await attemptFiles()).toEqual([]);
  });

  it('keeps the record on a 5xx without a release outcome, deletes it on a definite 4xx', async () => {
    fake.script.push({ kind: 'error', status: 500, code: 'SVC_INTERNAL' });
    const internal = await deploy(['--slug', 'err-site']);
    expect(internal.json()).toMatchObject({ error: { code: 'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN', details: { cause: 'SVC_INTERNAL' } } });
    expect(await attemptFiles()).toHaveLength(1);
    fake.script.push({ kind: 'error', status: 422, code: 'SVC_IDEMPOTENCY_KEY_REUSED' });
    const definite = await deploy();
    expect(definite.json()).toMatchObject({ error: { code: 'SVC_IDEMPOTENCY_KEY_REUSED' } });
    expect(definite.code).toBe(65);
    expect(fake.uploads[1]?.key).toBe(fake.uploads[0]?.key);
    expect(await attemptFiles()).toEqual([]);
  });

  it('waits for a release the server reports as still running (candidate) and keeps the record until it ends', async () => {
    fake.script.push({ kind: 'ok', status: 'candidate' });
    const run = await deploy(['--slug', 'slow-site']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.json()).toMatchObject({ release: { id: fake.releases[0]?.id, status: 'active' } });
    expect(await attemptFiles()).toEqual([]);
  });

  it('reports a failed release with its reason and exits with the failure code', async () => {
    fake.script.push({ kind: 'ok', status: 'failed', failure: { step: 'health', code: 'SVC_HEALTH_CHECK_FAILED', message: 'GET /healthz answered 500' } });
    const run = await deploy(['--slug', 'fail-site']);
    expect(run.json()).toMatchObject({ release: { status: 'failed' }, error: { code: 'SVC_HEALTH_CHECK_FAILED' } });
    expect(run.code).toBe(exitCodeFor(new SvcError('SVC_HEALTH_CHECK_FAILED')));
    expect(await attemptFiles()).toEqual([]);
    const human = await runCli(['deploy', '--no-build'], { cwd: app, home: dir, clock, env: { SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url } });
    expect(human.code).toBe(0); // the fake's next upload succeeds
    fake.script.push({
      kind: 'ok',
      status: 'failed',
      failure: {
        step: 'migrate',
        code: 'SVC_MIGRATION_FAILED',
        message: '0002_broken.sql: near "THIS"',
        hint: 'Fix the migration and deploy again.',
        outputTail: ['applying 0002_broken.sql', 'syntax error \u001b[31mnear THIS'],
      },
    });
    const failed = await runCli(['deploy', '--no-build'], { cwd: app, home: dir, clock, env: { SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url } });
    expect(failed.stdout).toMatch(/failed at migrate/);
    expect(failed.stdout).toContain('SVC_MIGRATION_FAILED: 0002_broken.sql');
    // The hint and the output tail the server recorded, with the terminal escape it carried removed.
    expect(failed.stdout).toMatch(/Hint\s+Fix the migration and deploy again\./);
    expect(failed.stdout).toContain('│ applying 0002_broken.sql');
    expect(failed.stdout).toContain('│ syntax error [31mnear THIS');
    expect(failed.stdout).not.toContain('\u001b');
    expect(failed.stderr).toContain('error SVC_MIGRATION_FAILED');
  });

  it('needs credentials before building anything, and rejects a corrupt link file', async () => {
    const noToken = await runCli(['deploy', '--no-build', '--json'], { cwd: app, home: dir, env: { SVC_TOKEN: undefined, SVC_SERVER: fake.url } });
    expect(noToken.json()).toMatchObject({ error: { code: 'SVC_NOT_LOGGED_IN' } });
    await mkdir(join(app, '.svc'), { recursive: true });
    await writeFile(join(app, '.svc', 'project.json'), '{"version":1}');
    const corrupt = await deploy();
    expect(corrupt.json()).toMatchObject({ error: { code: 'SVC_CLI_PROJECT_LINK_INVALID' } });
    expect(fake.uploads).toHaveLength(0);
  });
});
