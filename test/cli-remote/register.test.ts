// svc register (and svc login on a server without accounts) against the real control plane: the
// first account is created from the CLI, its token stored as `svc login` stores one, and a second
// registration is refused. On a terminal (a real pseudo-terminal through `script`) the password is
// asked for twice and never shown; without one it comes from --password-stdin.
import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { readStoredConfig } from '../../cli/credentials.js';
import { answerKeys } from '../../cli/terminal-prompt.js';
import { identityRoutes } from '../../src/identity/contract.js';
import { repoRoot } from '../support/repo-root.js';
import { requireComponents } from '../support/require-components.js';
import { runInTerminal, shellQuote, terminalComponent } from '../support/run-in-terminal.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const PASSWORD = 'correct horse battery staple';
const terminal = requireComponents('svc register on a terminal', [terminalComponent()]);

const homes: string[] = [];
async function newHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'svc-home-'));
  homes.push(home);
  return home;
}
afterEach(async () => {
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

/** `svc <argv>` in-process with `input` as a piped (non-terminal) stdin. */
async function run(argv: string[], home: string, input = '') {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    home,
    env: { NO_COLOR: '1' },
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    stdin: Object.assign(Readable.from([input]), { isTTY: false }),
  });
  return { code, stdout, stderr };
}

async function me(server: string, token: string): Promise<{ user: { email: string } }> {
  const response = await fetch(`${server}${identityRoutes.me}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { user: { email: string } };
}

describe('answering a prompt (keys, no terminal)', () => {
  it('ends at Enter, keeps what was typed ahead, edits with Backspace and echoes only visible answers', () => {
    expect(answerKeys('', 'ab\u007fc\rnext', false)).toEqual({ kind: 'done', text: 'ac', echo: 'ab\b \bc', rest: 'next' });
    expect(answerKeys('', 'secret\r\n', true)).toEqual({ kind: 'done', text: 'secret', echo: '', rest: '' });
    expect(answerKeys('pa', 'ss\u001b[Dw', true)).toEqual({ kind: 'typing', text: 'passw', echo: '' });
    expect(answerKeys('x', '\u0003', true)).toEqual({ kind: 'cancelled' });
  });
});

describe('svc register', () => {
  let platform: StartedPlatform;
  beforeAll(async () => {
    platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn' } });
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  it('needs a terminal or --password-stdin, and says which', async () => {
    const result = await run(['register', `--server=${platform.url}`, '--email=first@example.com'], await newHome());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('SVC_USAGE');
    expect(result.stderr).toContain('--password-stdin');
  });

  it('creates the first account from stdin, stores its token like svc login, and refuses a second', async () => {
    const home = await newHome();
    const result = await run(['register', `--server=${platform.url}`, '--email=First@Example.com', '--password-stdin'], home, `${PASSWORD}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Registered first@example.com on ${platform.url} and logged in.`);
    const stored = await readStoredConfig(home);
    expect(stored).toMatchObject({ version: 1, server: platform.url, account: 'first@example.com' });
    expect((await me(platform.url, stored!.token!)).user.email).toBe('first@example.com');
    // The password works in the browser too (trailing newline from `echo` not part of it).
    const login = await fetch(`${platform.url}${identityRoutes.login}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: PASSWORD }),
    });
    expect(login.status).toBe(200);

    const again = await run(['register', `--server=${platform.url}`, '--email=second@example.com', '--password-stdin', '--json'], await newHome(), PASSWORD);
    expect(again.code).not.toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'SVC_REGISTRATION_CLOSED' } });
    expect(JSON.parse(again.stdout).error.message).toContain('svc login');
  });
});

describe.skipIf(terminal.skip)('svc register and svc login on a terminal', () => {
  let platform: StartedPlatform;
  beforeAll(async () => {
    terminal.assertPresent();
    platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn' } });
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const cli = (args: string[]) => [process.execPath, '--import', 'tsx', join(repoRoot, 'cli', 'run.ts'), ...args].map(shellQuote).join(' ');

  it('svc login on a server without accounts offers to create the first; the password is asked twice and never shown', async () => {
    const home = await newHome();
    const session = runInTerminal(cli(['login', `--server=${platform.url}`]), {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TERM: 'dumb' },
    });
    try {
      await session.waitFor(/has no accounts yet/);
      await session.waitFor(/Create the first account now\? \[Y\/n\] $/);
      session.type('\r');
      await session.waitFor(/Email: $/);
      session.type('owner@example.com\r');
      const asked = session.output().length;
      await session.waitFor(/Password \(at least 10 characters\): $/, 30_000, asked);
      session.type(`${PASSWORD}\r`);
      await session.waitFor(/Repeat the password: $/);
      session.type(`${PASSWORD}\r`);
      const { exitCode, output } = await session.exited;
      expect(exitCode, output).toBe(0);
      expect(output).toContain(`Registered owner@example.com on ${platform.url} and logged in.`);
      expect(output).toContain('owner@example.com');
      expect(output).not.toContain('horse');
      const stored = await readStoredConfig(home);
      expect((await me(platform.url, stored!.token!)).user.email).toBe('owner@example.com');
    } finally {
      session.kill();
    }
  });
});
