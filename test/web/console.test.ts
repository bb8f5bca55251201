// End to end: the browser console against a real control plane on loopback, driven by
// headless Chromium. Register, approve `svc login`, create a project, deploy through the CLI, send
// traffic through the ingress and read the performance charts, deploy again, follow the live log
// tail, roll back with the data-restore phrase, read the audit feed; keyboard reachability, a
// 375 px check, session expiry, and no console errors. Screenshots: test-results/screenshots/
// (SVC_UPDATE_DOC_SCREENSHOTS=1 also refreshes the committed copies in docs/screenshots/ of those
// this flow shows; responsive-a11y.test.ts takes the overview, releases and device-login ones).
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson, runCli, spawnCli, type CliResult } from '../support/run-cli.js';
import { publishDocScreenshots, shot } from '../support/screenshots.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const SLUG = 'console-demo';
const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery staple';
const DOC_SHOTS = ['sign-up', 'rollback-dialog', 'logs', 'activity'];

const gate = chromiumGate('browser console end to end');

let platform: StartedPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let root: string;
let home: string;
let app: string;
const consoleErrors: string[] = [];
let allowUnauthorized = false; // see watchConsole

beforeAll(async () => {
  gate.assertPresent();
  // Build the console from the current sources (the platform serves web/dist).
  await ensureConsoleBuilt();
  root = await mkdtemp(join(tmpdir(), 'svc-console-e2e-'));
  home = join(root, 'home');
  app = join(root, 'app');
  await mkdir(home);
  [platform, browser] = await Promise.all([startPlatform(), launchChromium()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watchConsole(page);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

// Every console error or uncaught page error fails the test; only while session expiry (401) or a
// missing feature (404) is exercised on purpose are the browser's own resource messages expected.
function watchConsole(target: Page): void {
  target.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error') return;
    if (allowUnauthorized && /(401 \(Unauthorized\)|404 \(Not Found\))/.test(message.text())) return;
    consoleErrors.push(`${target.url()}: ${message.text()}`);
  });
  target.on('pageerror', (error) => consoleErrors.push(`${target.url()}: uncaught ${error.message}`));
}

async function useFixture(name: string): Promise<void> {
  for (const entry of ['src', 'dist', 'migrations', 'svc.deploy.json']) await rm(join(app, entry), { recursive: true, force: true });
  await cp(join(repoRoot, 'fixtures', 'apps', name), app, { recursive: true });
}

// The CLI with the login stored by `svc login` in HOME (no SVC_TOKEN).
function svc(args: string[]): Promise<CliResult> {
  return runCli(['--cwd', app, ...args], { home, timeoutMs: 120_000 });
}

async function deploy(): Promise<{ release: { id: string; status: string; predecessorId: string | null } }> {
  const result = await svc(['deploy', '--json']);
  expect(result.exitCode, `stdout: ${result.stdout}\nstderr: ${result.stderr}\nserver: ${platform.logs().slice(-3000)}`).toBe(0);
  return finalJson(result.stdout) as { release: { id: string; status: string; predecessorId: string | null } };
}

async function viaIngress(path: string): Promise<{ status: number; body: string }> {
  const response = await request(`${platform.url}${path}`, { headers: { host: `${SLUG}.localhost:${platform.port}` } });
  return { status: response.statusCode, body: await response.body.text() };
}

// Tab from the top of the page and collect what receives focus (bounded).
async function tabStops(target: Page, count: number): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < count; i++) {
    await target.keyboard.press('Tab');
    stops.push(
      await target.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el ? `${el.tagName.toLowerCase()}#${el.id}|${(el.textContent ?? '').trim().slice(0, 40)}` : '';
      }),
    );
  }
  return stops;
}

describe.skipIf(gate.skip)('browser console end to end', () => {
  it('registers, approves svc login, deploys, charts traffic, tails logs, rolls back with the phrase and shows the audit feed', async () => {
    const url = platform.url;

    // 1. The console is served with the strict CSP; signed out it goes to sign-in, then registration.
    const index = await fetch(`${url}/projects/anything`);
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await index.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    await page.goto(`${url}/`);
    await page.waitForURL((u) => u.pathname === '/sign-in');
    await page.getByRole('link', { name: 'Create the first account' }).click();
    await page.waitForURL((u) => u.pathname === '/sign-up');
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await page.fill('#name', 'Console Owner');
    await shot(page, 'sign-up');
    await page.click('#submit');
    await page.waitForURL((u) => u.pathname === '/');
    await expect.poll(() => page.textContent('main')).toContain('No projects yet');
    expect(await page.textContent('#signed-in-as')).toBe(EMAIL);

    // 2. `svc login` in a terminal; the code is approved on the console's device-login page.
    const login = spawnCli(['login', `--server=${url}`, '--name', 'console e2e terminal'], { home, timeoutMs: 120_000 });
    try {
      const [, , userCode] = (await login.waitForOutput(/Open (\S+) and confirm code ([A-Z0-9]{4}-[A-Z0-9]{4})/, 45_000)) as unknown as [
        string,
        string,
        string,
      ];
      await page.getByRole('link', { name: 'Device login' }).click();
      await page.fill('#code', userCode);
      await page.click('#continue');
      await expect.poll(() => page.textContent('#user-code')).toBe(userCode);
      expect(await page.textContent('#client-name')).toBe('console e2e terminal');
      await page.click('#approve');
      await expect.poll(() => page.textContent('#result'), { timeout: 10_000 }).toContain('Approved');
      const done = await login.exited;
      expect(done.exitCode, `stdout: ${done.stdout}\nstderr: ${done.stderr}`).toBe(0);
      expect(done.stdout).toContain(EMAIL);
    } finally {
      login.kill();
    }

    // 3. Create the project in the console; the overview offers the link file for `svc deploy`.
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.click('#new-project');
    await page.fill('#project-name', 'Console Demo');
    await page.fill('#project-slug', SLUG);
    await page.click('#create-project');
    await page.waitForURL((u) => u.pathname === `/projects/${SLUG}`);
    await expect.poll(() => page.textContent('#site-health')).toContain('Not deployed yet');
    const linkFile = JSON.parse((await page.textContent('#link-file')) ?? '') as { projectId: string; slug: string };
    expect(linkFile.slug).toBe(SLUG);

    // 4. Deploy the healthy fixture through the CLI into that project.
    await useFixture('healthy');
    await mkdir(join(app, '.svc'), { recursive: true });
    await writeFile(join(app, '.svc', 'project.json'), JSON.stringify(linkFile));
    const v1 = (await deploy()).release;
    expect(v1.status).toBe('active');

    // 5. Traffic through the ingress, then the charts show it (metrics flush every 5 s).
    for (let i = 0; i < 30; i++) expect((await viaIngress(i % 3 === 0 ? '/notes' : '/')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await viaIngress('/missing')).status).toBe(404);
    await page.reload();
    await expect.poll(() => page.textContent('#site-health')).toContain('Healthy');
    await expect.poll(() => page.textContent('#active-release')).toContain(v1.id.slice(0, 10));
    await expect
      .poll(
        async () => {
          await page.click('#metrics-refresh');
          await page.waitForTimeout(500);
          return Number((await page.textContent('#total-requests')) ?? '0');
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBeGreaterThanOrEqual(33);
    for (const chart of ['#chart-requests', '#chart-error-rate', '#chart-latency', '#chart-bytes']) {
      expect(await page.locator(`${chart} canvas`).count(), chart).toBe(1);
    }
    const legend = await page.locator('#chart-requests .u-legend .u-value').allTextContents();
    // Legend values carry their unit ("33 req / min").
    expect(legend[1], `requests legend: ${legend.join(' | ')}`).toMatch(/^\d+(\.\d+)?k? req \/ min$/);
    expect(parseFloat(legend[1]!), `requests legend: ${legend.join(' | ')}`).toBeGreaterThan(0);
    const latency = await page.locator('#chart-latency .u-legend .u-value').allTextContents();
    expect(latency[1], 'p50 legend').toMatch(/\d+(\.\d+)? (ms|s)$/);
    expect(await page.textContent('#total-bytes')).not.toBe('0 B');
    expect(await page.textContent('#storage-usage')).toMatch(/of/);
    await page.click('#window-24h');
    await expect.poll(() => page.getAttribute('#window-24h', 'aria-checked')).toBe('true');
    await expect.poll(async () => Number((await page.textContent('#total-requests')) ?? '0')).toBeGreaterThanOrEqual(33);
    await page.click('#window-1h');
    await page.waitForSelector('#chart-requests canvas');

    // 6. Live log tail: open the logs, then deploy v2 and watch its first line arrive.
    await page.click('#tab-logs');
    await expect.poll(() => page.textContent('#log-lines'), { timeout: 15_000 }).toContain('healthy listening');
    expect(await page.textContent('#log-state')).toContain('Live');
    await useFixture('healthy-v2');
    const v2 = (await deploy()).release;
    expect(v2).toMatchObject({ status: 'active', predecessorId: v1.id });
    await expect.poll(() => page.textContent('#log-lines'), { timeout: 20_000 }).toContain('healthy-v2 listening');
    await shot(page, 'logs');

    // 7. Releases: v2 active, v1 inactive. The data-restore rollback needs the exact phrase.
    await page.click('#tab-releases');
    await page.waitForSelector(`tr[data-release="${v2.id}"][data-status="active"]`);
    await page.waitForSelector(`tr[data-release="${v1.id}"][data-status="inactive"]`);
    await page.click(`#rollback-${v1.id}`);
    await page.waitForSelector('dialog[open]');
    await page.keyboard.press('Escape'); // the dialog closes from the keyboard without acting
    await page.waitForSelector('dialog[open]', { state: 'detached' });
    await page.click(`#rollback-${v1.id}`);
    await page.check('#rollback-restore-data');
    expect(await page.textContent('#restore-warning')).toContain(v2.id);
    expect(await page.textContent('#confirm-expected')).toBe(`restore ${SLUG}`);
    await page.fill('#confirm-phrase', `restore ${SLUG.toUpperCase()}`);
    expect(await page.isDisabled('#confirm-submit')).toBe(true);
    await page.fill('#confirm-phrase', `restore ${SLUG}`);
    expect(await page.isEnabled('#confirm-submit')).toBe(true);
    await shot(page, 'rollback-dialog', false);
    await page.click('#confirm-submit');
    await expect.poll(() => page.textContent('#rollback-result'), { timeout: 60_000 }).toContain('database was restored');
    await page.waitForSelector(`tr[data-release="${v1.id}"][data-status="active"]`);
    expect(JSON.parse((await viaIngress('/')).body)).toMatchObject({ version: 1, release: v1.id });

    // 8. The audit feed shows what happened, newest first.
    await page.getByRole('link', { name: 'Activity', exact: true }).first().click();
    await page.waitForURL((u) => u.pathname === '/audit');
    await page.waitForSelector('#audit-feed');
    const kinds = await page.locator('#audit-feed li').evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
    for (const kind of ['account.register', 'device.approve', 'project.create', 'release.activate', 'rollback.restore_data'])
      expect(kinds, kind).toContain(kind);
    expect(kinds.indexOf('rollback.restore_data')).toBeLessThan(kinds.indexOf('project.create'));
    await shot(page, 'activity');

    // 8b. The other pages load without errors; a secret (name only), a backup and a token via the UI.
    for (const tab of ['canary', 'secrets', 'backups', 'domains', 'github', 'recovery', 'activity', 'settings']) {
      await page.goto(`${url}/projects/${SLUG}/${tab}`);
      await page.waitForSelector('main .card, main .empty');
      await page.waitForFunction(() => !document.querySelector('main [role="status"].muted'));
      expect(await page.locator('.error-box').count(), `${tab}: ${await page.textContent('main')}`).toBe(0);
    }
    await page.goto(`${url}/projects/${SLUG}/secrets`);
    await page.fill('#secret-name', 'API_KEY');
    await page.fill('#secret-value', 'not shown again');
    await page.click('#secret-save');
    await expect.poll(() => page.textContent('#secrets-table')).toContain('API_KEY');
    expect(await page.textContent('main')).not.toContain('not shown again');
    await page.goto(`${url}/projects/${SLUG}/backups`);
    await page.click('#backup-now');
    // A backup copies the project's database and files: under a loaded machine it takes longer than
    // the default one-second poll.
    await expect.poll(() => page.textContent('main'), { timeout: 20_000 }).toMatch(/Backup \S+ created/);
    await page.goto(`${url}/tokens`);
    await page.fill('#token-name', 'ci');
    await page.click('#token-create');
    const raw = await page.locator('#new-token-value').inputValue();
    expect(raw).toMatch(/^svc_/);
    const me = await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${raw}` } });
    expect(me.status).toBe(200);
    await page.goto(`${url}/orgs`);
    await page.locator('#org-list a').first().click();
    await expect.poll(() => page.textContent('#members-table')).toContain(EMAIL);

    // 8c. A feature this server lacks (simulated by answering its route 404 SVC_NOT_FOUND) is a clear state.
    allowUnauthorized = true; // only the simulated 404 below is logged by the browser
    await page.route('**/api/projects/*/recovery', (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: { code: 'SVC_NOT_FOUND', message: 'No route' } }) }),
    );
    await page.goto(`${url}/projects/${SLUG}/recovery`);
    await page.waitForSelector('[data-state="not-available"]');
    expect(await page.textContent('[data-state="not-available"]')).toContain('not available on this server');
    await page.unroute('**/api/projects/*/recovery');
    allowUnauthorized = false;

    // 9. Keyboard: Tab reaches the skip link, the main sections and the primary action; Enter follows it.
    await page.goto(`${url}/`);
    await page.waitForSelector('#new-project');
    const stops = await tabStops(page, 12);
    expect(stops[0]).toContain('Skip to content');
    for (const label of ['|Projects', '|Activity', '|Tokens', 'a#new-project|'])
      expect(
        stops.some((s) => s.includes(label)),
        `${label} in ${stops.join(', ')}`,
      ).toBe(true);
    for (let i = 0; i < 12 && !(await page.evaluate(() => document.activeElement?.id === 'new-project')); i++) await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/new-project');

    // 10. Narrow screen (375 px): no sideways scrolling.
    const narrow = await context.newPage();
    watchConsole(narrow);
    await narrow.setViewportSize({ width: 375, height: 812 });
    await narrow.goto(`${url}/projects/${SLUG}`);
    await narrow.waitForSelector('#chart-requests canvas');
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await narrow.close();

    // 11. Session expiry: the next request returns to sign-in and then to the same page.
    allowUnauthorized = true;
    await page.goto(`${url}/projects/${SLUG}/releases`);
    await page.waitForSelector(`tr[data-release="${v1.id}"]`);
    await context.clearCookies();
    await page.click('#tab-activity');
    await page.waitForURL((u) => u.pathname === '/sign-in' && u.searchParams.get('expired') === '1');
    await page.waitForSelector('#session-expired');
    await page.fill('#email', EMAIL);
    await page.fill('#password', PASSWORD);
    await page.click('#submit');
    await page.waitForURL((u) => u.pathname === `/projects/${SLUG}/activity`);
    await page.waitForSelector('#audit-feed li');
    allowUnauthorized = false;

    // 12. An invitation from the organization page lets a second person register (bootstrap is over).
    await page.goto(`${url}/orgs`);
    await page.locator('#org-list a').first().click();
    await page.fill('#invite-email', 'dev@example.com');
    await page.selectOption('#invite-role', 'developer');
    await page.click('#invite-send');
    const invitationUrl = await page.locator('#invitation-url').inputValue();
    expect(new URL(invitationUrl).pathname).toBe('/sign-up');
    const other = await browser.newContext();
    const invitee = await other.newPage();
    watchConsole(invitee);
    await invitee.goto(invitationUrl);
    await invitee.fill('#email', 'dev@example.com');
    await invitee.fill('#password', PASSWORD);
    await invitee.click('#submit');
    await invitee.waitForURL((u) => u.pathname === '/');
    await expect.poll(() => invitee.textContent('main')).toContain('Console Demo');
    await other.close();

    // 13. Delete the site with the exact phrase and the data-loss acknowledgement.
    await page.goto(`${url}/projects/${SLUG}/settings`);
    await page.click('#delete-project');
    await page.fill('#confirm-phrase', `delete-site ${SLUG}`);
    expect(await page.isDisabled('#confirm-submit')).toBe(true);
    await page.check('#confirm-acknowledge');
    await page.click('#confirm-submit');
    await page.waitForURL((u) => u.pathname === '/', { timeout: 30_000 });
    await expect.poll(() => page.textContent('main')).toContain('No projects yet');
    expect((await viaIngress('/')).status).toBe(404);
    await page.goto(`${url}/audit`);
    await expect.poll(() => page.locator('#audit-feed li').first().getAttribute('data-kind')).toBe('project.delete');

    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
    await publishDocScreenshots(DOC_SHOTS);
  }, 300_000);
});
