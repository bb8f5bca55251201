// The console's isolation banner in headless Chromium against real control planes on loopback: shown
// on every page with SVC_SANDBOX=off and when the sandbox cannot work (SVC_SANDBOX_BWRAP pointing
// nowhere), absent with the default sandbox. The planes run in-process because a plane whose apps
// cannot start answers /readyz with 503, which the child-process helper waits out.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { isolationRoutes } from '../../src/releases/contract.js';
import { bootstrapAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { repoRoot } from '../support/repo-root.js';
import { commandComponent, requireComponents } from '../support/require-components.js';

const shotsDir = join(repoRoot, 'test-results', 'screenshots');
const browserGate = chromiumGate('console isolation banner');
const sandboxGate = requireComponents('console without banner under the default sandbox', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
]);

let browser: Browser;
let root: string;
const planes: ControlPlane[] = [];
const pageErrors: string[] = [];

/** A control plane with `env` (system clock, so browser cookies are current) on a loopback port. */
async function startPlane(name: string, env: Record<string, string>): Promise<string> {
  const config = testPlatformConfig({ dataDir: join(root, name), publicUrl: null, logLevel: 'silent', env });
  const plane = await buildControlPlane({ config, logger: createLogger({ level: 'silent' }) });
  planes.push(plane);
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(plane.app.server.address() as { port: number }).port}`;
}

/** Sign the first account of `url` in and wait until the console has asked for the isolation. */
async function signedInPage(url: string): Promise<Page> {
  const account = await bootstrapAccount(url, { email: 'owner@example.com' });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  watchPageErrors(page, pageErrors);
  const asked = page.waitForResponse((r) => new URL(r.url()).pathname === isolationRoutes.isolation);
  await signInThroughUi(page, url, account);
  expect((await asked).status()).toBe(200);
  return page;
}

describe.skipIf(browserGate.skip)('console isolation banner', () => {
  beforeAll(async () => {
    browserGate.assertPresent();
    root = await mkdtemp(join(tmpdir(), 'svc-console-isolation-'));
    await mkdir(shotsDir, { recursive: true });
    [browser] = await Promise.all([launchChromium(), ensureConsoleBuilt()]);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    for (const plane of planes.splice(0)) await plane.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('shows SVC_SANDBOX=off on every page, after in-app navigation and after a full load', async () => {
    const url = await startPlane('off', { SVC_SANDBOX: 'off' });
    const page = await signedInPage(url);
    const banner = page.locator('#isolation-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-mode')).toBe('unsandboxed');
    expect(await banner.getAttribute('role')).toBe('alert');
    expect(await banner.textContent()).toContain('Apps run without isolation: apps run WITHOUT isolation (SVC_SANDBOX=off) — only for apps you trust');
    await page.screenshot({ path: join(shotsDir, 'isolation-banner.png') });
    for (const [link, path] of [
      ['Activity', '/audit'],
      ['Tokens', '/tokens'],
      ['Organizations', '/orgs'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.waitForURL((u) => u.pathname === path);
      expect(await banner.isVisible(), link).toBe(true);
    }
    await page.goto(`${url}/tokens`);
    await banner.waitFor();
    expect(await banner.textContent()).toContain('WITHOUT isolation');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('says apps cannot start, with the code, when the sandbox does not work', async () => {
    const page = await signedInPage(await startPlane('broken', { SVC_SANDBOX_BWRAP: '/nonexistent/bwrap' }));
    const banner = page.locator('#isolation-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-available')).toBe('false');
    expect(await banner.textContent()).toContain('Apps cannot start');
    expect(await banner.locator('code').textContent()).toBe('SVC_SANDBOX_UNAVAILABLE');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  describe.skipIf(sandboxGate.skip)('with the default sandbox', () => {
    beforeAll(() => sandboxGate.assertPresent());

    it('shows no banner', async () => {
      const page = await signedInPage(await startPlane('default', {}));
      await expect.poll(() => page.textContent('main')).toContain('Projects');
      expect(await page.locator('#isolation-banner').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    }, 120_000);
  });
});
