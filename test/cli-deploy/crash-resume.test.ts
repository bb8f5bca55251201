// The ambiguous failure against the real control plane: the server kills itself (SVC_FAILPOINT) after
// it activated the release but before it answered; `svc deploy` keeps its attempt record, and the same
// command after a restart (on another port) reuses the key and gets the same release — never two.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson, runCli, spawnCli, type CliResult } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

let root: string;
let dataDir: string;
let app: string;
const platforms: StartedPlatform[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-cli-crash-'));
  dataDir = join(root, 'data');
  app = join(root, 'app');
  await cp(join(repoRoot, 'fixtures', 'apps', 'healthy'), app, { recursive: true });
});

afterAll(async () => {
  for (const platform of platforms) await platform.stop();
  await rm(root, { recursive: true, force: true });
});

function svc(platform: StartedPlatform, account: TestAccount, args: string[]): Promise<CliResult> {
  return runCli(['--cwd', app, ...args], { home: root, env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url }, timeoutMs: 120_000 });
}

describe('svc deploy across a control-plane crash', () => {
  it('resumes with the kept idempotency key and gets the release the crashed request created', async () => {
    const crashing = await startPlatform({ dataDir, env: { SVC_FAILPOINT: 'after-activate' } });
    platforms.push(crashing);
    const account = await bootstrapAccount(crashing.url);

    const first = await svc(crashing, account, ['deploy', '--slug', 'crash-site', '--json']);
    expect(finalJson(first.stdout)).toMatchObject({ error: { code: 'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN' } });
    expect(first.exitCode).toBe(75);
    await expect.poll(() => crashing.child.exitCode ?? crashing.child.signalCode, { timeout: 10_000 }).toBe('SIGKILL');
    const kept = await readdir(join(app, '.svc', 'attempts'));
    expect(kept).toHaveLength(1);

    // Same data directory, new process and port: the token, project and release survived.
    const restarted = await startPlatform({ dataDir });
    platforms.push(restarted);
    const second = await svc(restarted, account, ['deploy', '--json']);
    expect(second.exitCode, second.stdout + second.stderr).toBe(0);
    const out = finalJson(second.stdout) as { release: { id: string; status: string }; created: boolean; resumed: boolean };
    expect(out).toMatchObject({ release: { status: 'active' }, created: false, resumed: true });
    expect(await readdir(join(app, '.svc', 'attempts'))).toEqual([]);

    const history = await svc(restarted, account, ['releases', '--json']);
    const list = JSON.parse(history.stdout) as ReleaseListResponse;
    expect(list.releases.map((r) => r.id)).toEqual([out.release.id]);
    expect(list.activeReleaseId).toBe(out.release.id);

    // `svc logs --follow` streams the backlog (and stays open) until interrupted.
    const follow = spawnCli(['--cwd', app, 'logs', '--follow', '--stream', 'system'], {
      home: root,
      env: { SVC_TOKEN: account.accessToken, SVC_SERVER: restarted.url },
    });
    try {
      await follow.waitForOutput(new RegExp(`${out.release.id} system +\\| `), 30_000);
      expect(follow.child.exitCode).toBeNull();
    } finally {
      follow.kill();
      await follow.exited;
    }
  }, 180_000);
});
