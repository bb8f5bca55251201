// svc login/logout/projects/tokens/activity against the real control plane (child process on a
// free loopback port, temp data dir). Device approval goes through the session API, as the page does.
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../cli/api-client.js';
import { main } from '../../cli/main.js';
import { pollForToken } from '../../cli/commands/login.js';
import { configPath, readStoredConfig, writeStoredConfig } from '../../cli/credentials.js';
import { identityRoutes } from '../../src/identity/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { freePort } from '../support/free-port.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { runMain } from './run-main.js';

let platform: StartedPlatform;
let owner: TestAccount;
let home: string;

beforeAll(async () => {
  platform = await startPlatform({ env: { SVC_DEVICE_POLL_INTERVAL_SECONDS: '1', SVC_LOG_LEVEL: 'warn' } });
  owner = await bootstrapAccount(platform.url);
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-home-'));
  return () => rm(home, { recursive: true, force: true });
});

/** Run `svc login` in-process and approve (or deny) the code through the owner's browser session. */
async function loginWithDecision(decision: 'approve' | 'deny', extra: string[] = [], env: Record<string, string> = {}) {
  let seen = '';
  let decision$: Promise<unknown> | undefined;
  const writer = () => ({
    text: '',
    write(chunk: string) {
      this.text += chunk;
      seen += chunk;
      const match = /confirm code ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(seen);
      if (match && !decision$)
        decision$ = owner.session('POST', decision === 'approve' ? identityRoutes.deviceApprove : identityRoutes.deviceDeny, { userCode: match[1] });
      return true;
    },
  });
  const stdout = writer();
  const stderr = writer();
  const code = await main(['login', `--server=${platform.url}`, ...extra], { home, env: { NO_COLOR: '1', ...env }, stdout, stderr });
  await decision$;
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('svc login', () => {
  it('stores the approved token with mode 0600 and prints the prompt and account', async () => {
    const result = await loginWithDecision('approve');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\/device\S* and confirm code [A-Z0-9]{4}-[A-Z0-9]{4}$/m);
    expect(result.stdout).toContain(owner.email);
    expect((await stat(configPath(home))).mode & 0o777).toBe(0o600);
    const stored = await readStoredConfig(home);
    expect(stored).toMatchObject({ server: platform.url, account: owner.email });
    expect(result.stdout + result.stderr).not.toContain(stored?.token);
    const me = await runMain(['projects', '--json'], { home });
    expect(me.code, me.stdout).toBe(0);
  });

  it('--open hands the approval URL to the desktop opener (a recording xdg-open on PATH)', async () => {
    const bin = join(home, 'bin');
    const log = join(home, 'opened.txt');
    await mkdir(bin);
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> "${log}"\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    const result = await loginWithDecision('approve', ['--open'], { PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':0' });
    expect(result.code, result.stderr).toBe(0);
    const shown = /^Open (\S+) and confirm code/m.exec(result.stdout)?.[1];
    expect(shown).toMatch(/\/device\?/);
    expect((await readFile(log, 'utf8')).trim()).toBe(shown);
    expect(result.stderr).not.toContain('Could not open');
  });

  it('--json prints one final object (no token) and keeps the prompt on stderr', async () => {
    const result = await loginWithDecision('approve', ['--json']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({ server: platform.url, user: { email: owner.email } });
    expect(JSON.stringify(body)).not.toMatch(/svc_[A-Za-z0-9_-]{20,}/);
    expect(result.stderr).toContain('confirm code');
  });

  it('a denial ends with SVC_DEVICE_DENIED and stores nothing', async () => {
    const result = await loginWithDecision('deny');
    expect(result.stderr).toContain('SVC_DEVICE_DENIED');
    expect(result.code).toBe(65);
    expect(await readStoredConfig(home)).toBeUndefined();
  });

  it('refuses a non-HTTPS remote server before any request', async () => {
    const result = await runMain(['login', '--server', 'http://svc.example.com', '--json'], { home });
    expect(result.json()).toMatchObject({ error: { code: 'SVC_INSECURE_SERVER_URL' } });
    expect(result.code).toBe(65);
  });

  it('polling honours slow_down and stops with SVC_DEVICE_EXPIRED at expiry', async () => {
    const client = new ApiClient({ server: platform.url });
    const start = await client.startDeviceLogin('poll test');
    let now = 0;
    const sleeps: number[] = [];
    // Time is simulated: sleeps return at once, so the real server sees fast polls and asks to slow down.
    const effects = {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms;
      },
    };
    await expect(pollForToken(client, start, effects)).rejects.toMatchObject({ code: 'SVC_DEVICE_EXPIRED' });
    expect(sleeps[0]).toBe(start.interval * 1000);
    expect(Math.max(...sleeps)).toBeGreaterThan(start.interval * 1000);
    for (let i = 1; i < sleeps.length - 1; i++) expect(sleeps[i]).toBeGreaterThanOrEqual(sleeps[i - 1]!);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(start.expiresIn * 1000);
  });
});

describe('with a stored login', () => {
  beforeEach(async () => {
    await writeStoredConfig(home, { version: 1, server: platform.url, token: owner.accessToken, tokenId: owner.tokenId });
  });

  it('projects create + list (table and --json)', async () => {
    const created = await runMain(['projects', 'create', 'Remote Site', '--slug', 'remote-site', '--json'], { home });
    expect(created.code, created.stdout).toBe(0);
    expect(created.json()).toMatchObject({ project: { slug: 'remote-site', name: 'Remote Site' } });
    const listed = await runMain(['projects', '--json'], { home });
    expect(listed.json<{ projects: { slug: string }[] }>().projects.map((p) => p.slug)).toContain('remote-site');
    const table = await runMain(['projects'], { home });
    expect(table.stdout).toMatch(/^SLUG\s+NAME/m);
    expect(table.stdout).toMatch(/^remote-site\s+Remote Site/m);
    const shown = await runMain(['projects', 'show', 'remote-site'], { home });
    expect(shown.stdout).toMatch(/^slug\s+remote-site$/m);
    const missing = await runMain(['projects', 'show', 'no-such-site', '--json'], { home });
    expect(missing.code).toBe(66);
    expect(missing.json<{ error: { code: string } }>().error.code).toMatch(/NOT_FOUND/);
  });

  it('tokens create prints the raw token once, list shows it, revoke kills it', async () => {
    const created = await runMain(['tokens', 'create', '--name', 'ci', '--permission', 'read', '--permission', 'audit', '--expires-in-days', '30'], { home });
    expect(created.code, created.stderr).toBe(0);
    const raw = created.stdout.trim();
    expect(raw).toMatch(/^svc_\S+$/);
    expect(created.stderr).toContain('shown only once');
    const listed = await runMain(['tokens', 'list', '--json'], { home });
    const tokens = listed.json<{ tokens: { id: string; name: string; permissions: string[]; status: string }[] }>().tokens;
    const ci = tokens.find((t) => t.name === 'ci');
    expect(ci).toMatchObject({ permissions: ['audit', 'read'], status: 'active' });
    expect(listed.stdout).not.toContain(raw);
    // The new token works through SVC_TOKEN (CI use) with no stored login at all.
    const ciHome = await mkdtemp(join(tmpdir(), 'svc-ci-'));
    try {
      const viaEnv = await runMain(['projects', '--json'], { home: ciHome, env: { SVC_TOKEN: raw, SVC_SERVER: platform.url } });
      expect(viaEnv.code, viaEnv.stdout).toBe(0);
      const revoked = await runMain(['tokens', 'revoke', ci!.id, '--json'], { home });
      expect(revoked.json()).toMatchObject({ token: { id: ci!.id, status: 'revoked' } });
      const refused = await runMain(['projects', '--json'], { home: ciHome, env: { SVC_TOKEN: raw, SVC_SERVER: platform.url } });
      expect(refused.json()).toMatchObject({ error: { code: 'SVC_TOKEN_REVOKED' } });
      expect(refused.code).toBe(77);
    } finally {
      await rm(ciHome, { recursive: true, force: true });
    }
  });

  it('tokens create validates permissions locally', async () => {
    const none = await runMain(['tokens', 'create', '--name', 'x', '--json'], { home });
    expect(none.json()).toMatchObject({ error: { code: 'SVC_USAGE' } });
    const bad = await runMain(['tokens', 'create', '--name', 'x', '--permission', 'root', '--json'], { home });
    expect(bad.json()).toMatchObject({ error: { code: 'SVC_USAGE' } });
  });

  it('activity --json is exactly the GET /api/audit page; the table is newest first', async () => {
    await runMain(['projects', 'create', 'Audited Site', '--slug', 'audited-site'], { home });
    const cli = await runMain(['activity', '--json', '--limit', '5'], { home });
    expect(cli.code, cli.stdout).toBe(0);
    const api = await owner.api<{ events: { id: string; kind: string }[] }>('GET', '/api/audit?limit=5');
    expect(cli.json()).toEqual(api);
    expect(api.events.map((e) => e.kind)).toContain('project.create');
    const table = await runMain(['activity', '--limit', '5'], { home });
    expect(table.stdout).toMatch(/^TIME\s+KIND\s+ACTOR/m);
    const firstRow = table.stdout.split('\n')[1] ?? '';
    expect(firstRow).toContain(api.events[0]!.id);
    const bad = await runMain(['activity', '--limit', '0', '--json'], { home });
    expect(bad.json()).toMatchObject({ error: { code: 'SVC_USAGE' } });
  });

  it('SVC_SERVER pointing elsewhere does not receive the stored token', async () => {
    const other = `http://127.0.0.1:${await freePort()}`;
    const result = await runMain(['projects', '--json'], { home, env: { SVC_SERVER: other } });
    expect(result.json()).toMatchObject({ error: { code: 'SVC_NOT_LOGGED_IN' } });
  });
});

describe('svc logout', () => {
  it('revokes on the server, then removes the token locally', async () => {
    const extra = await owner.api<{ accessToken: string; token: { id: string } }>('POST', identityRoutes.tokens, { name: 'laptop', permissions: ['read'] });
    await writeStoredConfig(home, { version: 1, server: platform.url, token: extra.accessToken });
    const result = await runMain(['logout', '--json'], { home });
    expect(result.code, result.stdout).toBe(0);
    expect(result.json()).toMatchObject({ revoked: true, removedLocally: true });
    expect(await readFile(configPath(home), 'utf8')).not.toContain(extra.accessToken);
    const check = await fetch(`${platform.url}/api/me`, { headers: { authorization: `Bearer ${extra.accessToken}` } });
    expect(check.status).toBe(401);
  });

  it('removes an already-dead token locally (401)', async () => {
    await writeStoredConfig(home, { version: 1, server: platform.url, token: 'svc_definitelyNotAValidTokenxxxxxxxxxxxxxxxxxxx' });
    const result = await runMain(['logout', '--json'], { home });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ revoked: false, removedLocally: true, reason: 'token-already-invalid' });
    expect((await readStoredConfig(home))?.token).toBeUndefined();
  });

  it('keeps the token when the server is unreachable', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    await writeStoredConfig(home, { version: 1, server: down, token: 'svc_kept' });
    const result = await runMain(['logout'], { home });
    expect(result.code).toBe(75);
    expect(result.stderr).toContain('SVC_NETWORK');
    expect(result.stderr).toContain('NOT revoked');
    expect((await readStoredConfig(home))?.token).toBe('svc_kept');
  });

  it('says so when not logged in', async () => {
    const result = await runMain(['logout'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Not logged in');
  });
});
