// `svc rollback --restore-data`: without the phrase it shows what would be lost and the phrase, then
// exits with the server's code; on a terminal it asks for the phrase; code-only needs no phrase.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { FAKE_TOKEN, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane.js';

let fake: FakeControlPlane;
let dir: string;
let cleanup: () => Promise<void>;
let app: string;
let first: string;
let second: string;
const env = (): Record<string, string> => ({ NO_COLOR: '1', SVC_TOKEN: FAKE_TOKEN, SVC_SERVER: fake.url });

beforeEach(async () => {
  fake = await startFakeControlPlane();
  ({ dir, cleanup } = await tempDir('svc-cli-rollback-'));
  app = join(dir, 'site');
  await mkdir(join(app, 'dist'), { recursive: true });
  await writeFile(join(app, 'svc.deploy.json'), JSON.stringify({ version: 1, entry: 'dist/server.mjs' }));
  for (const version of [1, 2]) {
    await writeFile(join(app, 'dist', 'server.mjs'), `// v${version}\n`);
    const run = await runCli(['deploy', '--no-build', '--slug', 'notes', '--json'], { cwd: app, home: dir, env: env() });
    expect(run.code).toBe(0);
  }
  [first, second] = fake.releases.map((r) => r.id) as [string, string];
  // Shape the fake's history like the real one: v2 active with v1 as predecessor and a snapshot.
  fake.releases[0]!.status = 'inactive';
  Object.assign(fake.releases[1]!, { predecessorId: first, storage: { ...fake.releases[1]!.storage, snapshotBytes: 4096 } });
});

afterEach(async () => {
  await fake.close();
  await cleanup();
});

/** Standard input that answers one line, as a terminal would. */
function ttyInput(line: string): AsyncIterable<string> & { isTTY: boolean } {
  return {
    isTTY: true,
    async *[Symbol.asyncIterator]() {
      yield `${line}\n`;
    },
  };
}

describe('svc rollback', () => {
  it('rolls back code only without any phrase', async () => {
    const run = await runCli(['rollback', first, '--json'], { cwd: app, home: dir, env: env() });
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ release: { id: first }, previousReleaseId: second, restoredData: false });
    expect(fake.rollbacks).toEqual([{ releaseId: first, restoreData: false }]);
  });

  it('without the phrase: prints the snapshot and what is lost, the phrase, and exits with the server code', async () => {
    const run = await runCli(['rollback', first, '--restore-data'], { cwd: app, home: dir, env: env() });
    expect(run.code).toBe(exitCodeFor(new SvcError('SVC_RELEASE_CONFIRMATION_MISMATCH')));
    expect(run.stderr).toContain(`snapshot taken before release ${second}`);
    expect(run.stderr).toContain('4.0 KiB');
    expect(run.stderr).toMatch(/every database write made since \d{4}-/);
    expect(run.stderr).toContain('--confirm="restore notes"');
    expect(run.stderr).toContain('error SVC_RELEASE_CONFIRMATION_MISMATCH');
    expect(fake.rollbacks).toEqual([{ releaseId: first, restoreData: true }]);
    expect(fake.releases[1]?.status).toBe('active');
  });

  it('asks for the phrase on a terminal and sends what was typed', async () => {
    const run = await runCli(['rollback', first, '--restore-data'], { cwd: app, home: dir, env: env(), tty: true, stdin: ttyInput('restore notes') });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Type "restore notes" to confirm: ');
    expect(run.stdout).toContain('restored from the pre-deploy snapshot');
    expect(fake.rollbacks).toEqual([{ releaseId: first, restoreData: true, confirm: 'restore notes' }]);
  });

  it('a wrong phrase typed at the prompt is rejected by the server', async () => {
    const run = await runCli(['rollback', first, '--restore-data', '--json'], { cwd: app, home: dir, env: env(), tty: true, stdin: ttyInput('restore other') });
    // --json never prompts: the request goes without a phrase.
    expect(run.json()).toMatchObject({ error: { code: 'SVC_RELEASE_CONFIRMATION_MISMATCH' } });
    expect(fake.rollbacks).toEqual([{ releaseId: first, restoreData: true }]);
    const typed = await runCli(['rollback', first, '--restore-data'], { cwd: app, home: dir, env: env(), tty: true, stdin: ttyInput('restore other') });
    expect(typed.code).toBe(65);
    expect(fake.rollbacks.at(-1)).toEqual({ releaseId: first, restoreData: true, confirm: 'restore other' });
  });

  it('needs a link or --project', async () => {
    const run = await runCli(['rollback', first, '--json'], { cwd: dir, home: dir, env: env() });
    expect(run.json()).toMatchObject({ error: { code: 'SVC_CLI_PROJECT_NOT_LINKED' } });
    const byFlag = await runCli(['rollback', first, '--project', 'notes', '--json'], { cwd: dir, home: dir, env: env() });
    expect(byFlag.code).toBe(0);
  });
});
