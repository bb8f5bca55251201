// Every console page, and the server-rendered /login, /register and /device, in headless Chromium
// against a real control plane with a deployed project: at 375 px and 1280 px, light and dark,
// the page never scrolls sideways and axe-core finds no violation; at 375 px every project tab can
// be scrolled to and clicked. Then the keyboard alone: Tab reaches every control with a visible
// focus ring, dialogs (axe-checked in both themes) keep focus inside, Escape closes them and focus
// returns to the opener.
// Screenshots: test-results/screenshots/ (SVC_UPDATE_DOC_SCREENSHOTS=1 also refreshes docs/screenshots/).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { axeViolations, describeViolations } from '../support/axe.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { deployFixture, deployNext } from '../support/deploy-fixture.js';
import { keyboardWalk } from '../support/keyboard-walk.js';
import { publishDocScreenshots, shot } from '../support/screenshots.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const SLUG = 'layout-demo';
const TABS = ['overview', 'releases', 'canary', 'logs', 'secrets', 'backups', 'domains', 'github', 'recovery', 'activity', 'settings'];
const VIEWS = [
  { width: 1280, height: 900, scheme: 'light' },
  { width: 1280, height: 900, scheme: 'dark' },
  { width: 375, height: 812, scheme: 'dark' },
  { width: 375, height: 812, scheme: 'light' },
] as const;
type View = (typeof VIEWS)[number];
// Which page in which view becomes which screenshot (the docs show these).
const SHOTS: Record<string, string> = {
  'project-overview 1280 light': 'project-overview',
  'project-overview 1280 dark': 'overview-dark',
  'project-overview 375 light': 'narrow-overview',
  'releases 1280 light': 'releases',
  'device-login 1280 light': 'device-login',
  'server /device 375 light': 'device-page-narrow',
  'server /device 1280 dark': 'device-page-dark',
};

const gate = chromiumGate('console layout and accessibility');

let platform: StartedPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workDir: string;
let account: TestAccount;
let releases: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  gate.assertPresent();
  await ensureConsoleBuilt();
  workDir = await mkdtemp(join(tmpdir(), 'svc-layout-a11y-'));
  [platform, browser] = await Promise.all([startPlatform(), launchChromium()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watchPageErrors(page, pageErrors);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await platform?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

// Loading lines gone and two frames painted (charts size themselves in a ResizeObserver).
async function settle(): Promise<void> {
  await page.waitForSelector('main');
  await page
    .waitForFunction(() => !document.querySelector('main p.muted[role="status"][aria-live]'), undefined, { timeout: 20_000 })
    .catch(async (error: Error) => {
      throw new Error(`${page.url()} still loading: ${await page.textContent('main')}`, { cause: error });
    });
  if (await page.locator('main .chart').count()) await page.waitForSelector('main .chart canvas');
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

// The widest elements sticking out of the viewport (outside any box that scrolls or clips them).
function overflowing(): Promise<{ scrollWidth: number; clientWidth: number; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    const clips = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && !clips(el))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} → ${Math.round(el.getBoundingClientRect().right)}px`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, culprits };
  });
}

// At a wide view: fields of a stacked form sit one spacing step apart (not spread over the form's
// height), and running text that could fill a long line is held to a readable measure.
function layoutFaults(): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''}`;
    for (const form of document.querySelectorAll('.stack')) {
      const items = [...form.children].filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).position !== 'absolute');
      // Measured between what the items show, not their boxes: a field stretched taller than its
      // label and input leaves the empty space inside its box (so a range over its contents), while
      // an item with a border or background shows its box.
      const content = (el: Element) => {
        const style = getComputedStyle(el);
        if (parseFloat(style.borderTopWidth) > 0 || style.backgroundColor !== 'rgba(0, 0, 0, 0)') return el.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(el);
        return range.getBoundingClientRect();
      };
      for (let i = 1; i < items.length; i++) {
        const gap = content(items[i]!).top - content(items[i - 1]!).bottom;
        if (gap > 24) faults.push(`${Math.round(gap)} px between ${name(items[i - 1]!)} and ${name(items[i]!)} in ${name(form)}`);
      }
    }
    const blocks = [...document.querySelectorAll<HTMLElement>('main p, main li, main dd, main label, main figcaption, main div:not(:has(*))')];
    for (const el of blocks) {
      const em = parseFloat(getComputedStyle(el).fontSize);
      if (el.innerText.length > 100 && el.clientWidth / em > 46) faults.push(`${name(el)}: lines ${Math.round(el.clientWidth / em)} em wide`);
    }
    return faults.slice(0, 8);
  });
}

async function show(view: View): Promise<void> {
  await page.setViewportSize({ width: view.width, height: view.height });
  await page.emulateMedia({ colorScheme: view.scheme });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

// The current page in every view: no sideways scrolling, no axe violation. Problems are collected,
// not thrown, so one run lists all of them.
async function checkViews(name: string, problems: string[]): Promise<void> {
  await settle();
  for (const view of VIEWS) {
    await show(view);
    const label = `${name} ${view.width} ${view.scheme}`;
    if (view.width === 1280 && view.scheme === 'light') for (const fault of await layoutFaults()) problems.push(`${label}: ${fault}`);
    const o = await overflowing();
    if (o.scrollWidth > o.clientWidth) problems.push(`${label}: scrolls sideways (${o.scrollWidth} > ${o.clientWidth}): ${o.culprits.join(', ')}`);
    const violations = await axeViolations(page);
    if (violations.length) problems.push(`${label}: axe\n  ${describeViolations(violations)}`);
    if (SHOTS[label]) await shot(page, SHOTS[label]);
  }
}

async function viaIngress(path: string): Promise<number> {
  const response = await request(`${platform.url}${path}`, { headers: { host: `${SLUG}.localhost:${platform.port}` } });
  await response.body.dump();
  return response.statusCode;
}

describe.skipIf(gate.skip)('console layout and accessibility', () => {
  it('every page at 375 and 1280 px in light and dark: no sideways scrolling, every project tab reachable, axe finds nothing', async () => {
    const url = platform.url;
    const problems: string[] = [];

    // Signed out, before the first account exists: the console's and the server's sign-in pages.
    for (const path of ['/sign-in', '/sign-up', '/login', '/register']) {
      await page.goto(`${url}${path}`);
      await checkViews(path.startsWith('/sign') ? path.slice(1) : `server ${path}`, problems);
    }

    // A project with two releases and some traffic, so pages show real rows and charts.
    account = await bootstrapAccount(url, { email: 'owner@example.com', name: 'Layout Owner' });
    const deployed = await deployFixture(url, account, { slug: SLUG, workDir });
    releases = [deployed.releaseId, await deployNext(url, account, deployed.projectId, 'healthy-v2', workDir)];
    for (let i = 0; i < 20; i++) expect(await viaIngress(i % 4 === 0 ? '/missing' : '/')).toBeLessThan(500);
    const { userCode } = await account.session<{ userCode: string }>('POST', '/api/device/start', { clientName: 'svc CLI on a laptop' });
    const orgs = await account.api<{ organizations: { slug: string }[] }>('GET', '/api/orgs');
    await signInThroughUi(page, url, account);

    const consolePages: [string, string][] = [
      ['dashboard', '/'],
      ['new-project', '/new-project'],
      ['device-login', `/device-login?code=${userCode}`],
      ['device-login (enter code)', '/device-login'],
      ['audit', '/audit'],
      ['tokens', '/tokens'],
      ['operations', '/operations'],
      ['orgs', '/orgs'],
      ['org', `/orgs/${orgs.organizations[0]!.slug}`],
      ['not-found', '/no-such-page'],
      ['server /device', `/device?code=${userCode}`],
      ['server /device (enter code)', '/device'],
      ['server /register (closed)', '/register'],
    ];
    for (const [name, path] of consolePages) {
      await page.goto(`${url}${path}`);
      await checkViews(name, problems);
    }
    // Closed registration is a 403 page on purpose; the browser logs the status as an error.
    const closed = pageErrors.findIndex((e) => e.startsWith(`${url}/register:`) && e.includes('403 (Forbidden)'));
    if (closed >= 0) pageErrors.splice(closed, 1);

    // Project tabs, moved between by clicking the tab at 375 px (where the row is wider than the screen).
    await page.goto(`${url}/projects/${SLUG}`);
    await checkViews('project-overview', problems);
    for (const tab of TABS.slice(1)) {
      const link = page.locator(`#tab-${tab}`);
      await link.scrollIntoViewIfNeeded();
      const box = await link.boundingBox();
      if (!box || box.x < 0 || box.x + box.width > 375)
        problems.push(`tab ${tab}: not within the 375 px screen after scrolling its bar (${JSON.stringify(box)})`);
      await link.click();
      await page.waitForURL((u) => u.pathname === `/projects/${SLUG}/${tab}`);
      await checkViews(tab, problems);
    }

    expect(problems, problems.join('\n')).toEqual([]);
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
  }, 300_000);

  it('the keyboard alone reaches every control with a visible focus ring; dialogs keep focus and close with Escape', async () => {
    const url = platform.url;
    expect(releases, 'the first test deploys the project').toHaveLength(2);
    await show(VIEWS[0]);
    const problems: string[] = [];
    const walk = async (name: string, within: 'page' | 'dialog' = 'page', target = page) => {
      const w = await keyboardWalk(target, within);
      if (w.unreached.length) problems.push(`${name}: Tab never reaches ${w.unreached.join(', ')}`);
      if (w.invisibleFocus.length) problems.push(`${name}: focus not visible on ${w.invisibleFocus.join(', ')}`);
      if (w.escaped.length) problems.push(`${name}: focus left the dialog to ${w.escaped.join(', ')}`);
    };
    // Signed out: the console's and the server's sign-in forms.
    const guestContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const guest = await guestContext.newPage();
    watchPageErrors(guest, pageErrors);
    for (const path of ['/sign-in', '/login']) {
      await guest.goto(`${url}${path}`);
      await guest.waitForSelector('#email');
      await walk(`${path} (signed out)`, 'page', guest);
    }
    await guestContext.close();

    const paths = ['/', '/new-project', '/device-login', '/device', '/tokens', '/orgs', '/audit', '/operations'];
    for (const tab of TABS) paths.push(`/projects/${SLUG}${tab === 'overview' ? '' : `/${tab}`}`);
    for (const path of paths) {
      await page.goto(`${url}${path}`);
      await settle();
      await walk(path);
    }

    // Dialogs: opened from the keyboard, walked, closed with Escape; focus goes back to the opener.
    const dialogs: [string, string][] = [
      [`/projects/${SLUG}/releases`, `#rollback-${releases[0]}`],
      [`/projects/${SLUG}/settings`, '#delete-project'],
      ['/tokens', '#tokens-table .row-actions button'],
    ];
    for (const [path, opener] of dialogs) {
      await page.goto(`${url}${path}`);
      await settle();
      await page.focus(opener);
      await page.keyboard.press('Enter');
      await page.waitForSelector('dialog[open]');
      for (const scheme of ['dark', 'light'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const violations = await axeViolations(page);
        if (violations.length) problems.push(`${path} dialog ${scheme}: axe\n  ${describeViolations(violations)}`);
      }
      await walk(`${path} dialog`, 'dialog');
      await page.keyboard.press('Escape');
      await page.waitForSelector('dialog[open]', { state: 'detached' });
      const back = await page.evaluate((selector) => document.activeElement === document.querySelector(selector), opener);
      if (!back) problems.push(`${path} dialog: focus did not return to ${opener} after Escape`);
    }

    expect(problems, problems.join('\n')).toEqual([]);
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
    await publishDocScreenshots(Object.values(SHOTS));
  }, 180_000);
});
