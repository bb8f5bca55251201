// The real CLI as a child process: exit codes and stdout exactly as a shell script sees them.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { runCli, runCliProcess, tempDir } from './run-cli.js';

let root: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('svc-process-'));
  expect((await runCli(['create', 'app'], { cwd: root })).code).toBe(0);
});
afterAll(() => cleanup());

describe('svc as a process', () => {
  it('deploy --dry-run --json exits 0 and prints one JSON document with the digest', async () => {
    const run = await runCliProcess(['--cwd', join(root, 'app'), 'deploy', '--dry-run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const body = run.json<{ digest: string; fileCount: number }>();
    expect(body.digest).toMatch(/[0-9a-f]{64}/);
    expect(body.fileCount).toBe(2);
    // The same digest as an in-process run: the child `svc build` ran through the same sources.
    const again = await runCli(['deploy', '--dry-run', '--json'], { cwd: join(root, 'app') });
    expect(again.json<{ digest: string }>().digest).toBe(body.digest);
  });

  it('exits with the code of the error kind: 66 for a missing artifact, the usage code for usage errors, 0 for --help', async () => {
    const missing = await runCliProcess(['inspect', join(root, 'missing.svc.gz'), '--json']);
    expect(missing.code).toBe(66);
    expect(missing.json()).toMatchObject({ error: { code: 'SVC_NOT_FOUND' } });
    const usage = await runCliProcess(['inspect']);
    expect(usage.code).toBe(exitCodeFor(new SvcError('SVC_USAGE')));
    expect(usage.stderr).toMatch(/^error SVC_USAGE: /m);
    const help = await runCliProcess(['deploy', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--dry-run');
  });
});
