// End to end: the real server as a child process, the first account registered in
// headless Chromium, `svc login` as a child process approved in the browser, then the CLI
// lists projects with the stored token (~/.svc/config.json, mode 0600).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { runCli, spawnCli } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const gate = chromiumGate('device login end to end');

let platform: StartedPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let home: string;

beforeAll(async () => {
  gate.assertPresent();
  home = await mkdtemp(join(tmpdir(), 'svc-e2e-home-'));
  [platform, browser] = await Promise.all([startPlatform(), launchChromium()]);
  context = await browser.newContext();
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await platform?.stop();
  await rm(home, { recursive: true, force: true });
});

describe.skipIf(gate.skip)('device login end to end', () => {
  it('registers in the browser, approves `svc login`, then lists projects with the stored token', async () => {
    const email = 'owner@example.com';
    // 1. First account through the server-rendered registration page.
    await page.goto(`${platform.url}/register?next=/device`);
    await page.fill('#email', email);
    await page.fill('#password', 'correct horse battery staple');
    await page.fill('#name', 'E2E Owner');
    await Promise.all([page.waitForURL((url) => url.pathname === '/device'), page.click('#submit')]);

    // 2. `svc login` as a child process; read the prompt from its stdout.
    const login = spawnCli(['login', `--server=${platform.url}`, '--name', 'e2e terminal'], { home, timeoutMs: 120_000 });
    try {
      const match = await login.waitForOutput(/Open (\S+) and confirm code ([A-Z0-9]{4}-[A-Z0-9]{4})/, 45_000);
      const [, verificationUrl, userCode] = match as unknown as [string, string, string];
      expect(new URL(verificationUrl).origin).toBe(platform.url);

      // 3. Review and approve in the browser (same session that registered).
      await page.goto(verificationUrl);
      await expect.poll(() => page.textContent('#user-code')).toBe(userCode);
      expect(await page.textContent('#client-name')).toBe('e2e terminal');
      await page.click('#approve');
      await expect.poll(() => page.textContent('#result'), { timeout: 10_000 }).toContain('Approved');

      // 4. The CLI picks the token up at the server's interval and exits 0.
      const result = await login.exited;
      expect(result.exitCode, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(email);
    } finally {
      login.kill();
    }

    // 5. Token stored privately, never printed.
    const configFile = join(home, '.svc', 'config.json');
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(configFile, 'utf8')) as { server: string; token: string };
    expect(stored.server).toBe(platform.url);
    expect(stored.token).toMatch(/^svc_/);
    expect(login.stdout()).not.toContain(stored.token);

    // 6. The CLI uses the stored login: create a project, then list it as JSON.
    const created = await runCli(['projects', 'create', 'E2E Site', '--slug', 'e2e-site'], { home });
    expect(created.exitCode, created.stderr).toBe(0);
    const listed = await runCli(['projects', '--json'], { home });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const projects = (JSON.parse(listed.stdout) as { projects: Array<{ slug: string; name: string }> }).projects;
    expect(projects.map((p) => p.slug)).toContain('e2e-site');

    // 7. Logout revokes the token on the server: the same raw token is now refused.
    const out = await runCli(['logout', '--json'], { home });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ revoked: true, removedLocally: true });
    const refused = await fetch(`${platform.url}/api/projects`, { headers: { authorization: `Bearer ${stored.token}` } });
    expect(refused.status).toBe(401);
    const after = await runCli(['projects'], { home });
    expect(after.exitCode).toBe(77);
    expect(after.stderr).toContain('SVC_NOT_LOGGED_IN');
  }, 150_000);
});
