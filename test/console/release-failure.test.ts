// Say what happened, against a real control plane (child process on loopback) in headless Chromium:
// a deploy of the failing-health fixture fails at its health check, and the project page shows the
// step, the code, the message, the code's hint and the app's last output lines, with "View logs"
// (that release's lines) and "Roll back". The releases list and the activity feed read as sentences.
// Guarded actions: "Link repository" is disabled without a GitHub App and says what to configure;
// the restore-data rollback and project deletion say what is lost and need the exact phrase.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/core/errors.js';
import type { UploadResponse } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { postRelease } from '../support/post-release.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { packFixture } from '../releases/release-support.js';

const shotsDir = join(repoRoot, 'test-results', 'screenshots');
const gate = chromiumGate('console: failed release, sentences and guarded actions');

let platform: StartedPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let root: string;
let owner: TestAccount;
let project: { id: string; slug: string };
const releases: Record<string, UploadResponse['release']> = {};
const pageErrors: string[] = [];

async function deploy(app: string): Promise<UploadResponse['release']> {
  const artifact = await packFixture(app, root);
  const res = await postRelease(platform.url, owner.accessToken, project.id, artifact, { key: `key-${randomUUID()}`, wait: true });
  const body = (await res.json()) as UploadResponse;
  expect(body.release, JSON.stringify(body)).toBeDefined();
  return body.release;
}

beforeAll(async () => {
  gate.assertPresent();
  const build = ensureConsoleBuilt();
  root = await mkdtemp(join(tmpdir(), 'svc-console-failure-'));
  await mkdir(shotsDir, { recursive: true });
  // No GitHub App settings: the GitHub page must explain what is missing.
  [platform, browser] = await Promise.all([startPlatform(), launchChromium(), build]);
  owner = await bootstrapAccount(platform.url, { email: 'ana@example.com', name: 'Ana' });
  project = (await owner.api<{ project: { id: string; slug: string } }>('POST', '/api/projects', { name: 'Failure Demo', slug: 'failure-demo' })).project;
  releases.v1 = await deploy('healthy');
  releases.v2 = await deploy('healthy'); // the same migrations as the failing-health fixture (it would miss v2's)
  releases.bad = await deploy('failing-health');
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watchPageErrors(page, pageErrors);
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe.skipIf(gate.skip)('console: failed release, sentences and guarded actions', () => {
  it('the project page says why the newest deploy failed, with hint, output tail, View logs and Roll back', async () => {
    expect(releases.v1!.status).toBe('active');
    expect(releases.v2!.status).toBe('active');
    expect(releases.bad).toMatchObject({ status: 'failed', failure: { step: 'health', code: 'SVC_HEALTH_CHECK_FAILED' } });
    await signInThroughUi(page, platform.url, owner);

    await page.goto(`${platform.url}/projects/${project.slug}`);
    const card = page.locator('#release-failure');
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toBe('The newest deploy failed');
    expect(await card.textContent()).toContain('is still serving');
    expect(await card.locator('[data-testid="failure-step"]').textContent()).toBe('health');
    expect(await card.locator('[data-testid="failure-code"]').textContent()).toBe('SVC_HEALTH_CHECK_FAILED');
    expect(await card.locator('[data-testid="failure-message"]').textContent()).toContain('/healthz did not answer 2xx');
    expect(await card.locator('[data-testid="failure-hint"]').textContent()).toBe(errorCodes.SVC_HEALTH_CHECK_FAILED.hint.replaceAll('`', ''));
    expect(await card.locator('[data-testid="failure-output"]').textContent()).toContain('failing-health listening on http://');
    expect(await card.locator('time').getAttribute('datetime')).toBe(releases.bad!.finishedAt);
    expect(await card.locator('time').textContent()).toMatch(/ ago$/);
    await page.screenshot({ path: join(shotsDir, 'release-failure.png') });
    // docs/console.md shows it; SVC_UPDATE_DOC_SCREENSHOTS=1 refreshes the committed copy as test/web/console.test.ts does.
    if (process.env.SVC_UPDATE_DOC_SCREENSHOTS === '1')
      await copyFile(join(shotsDir, 'release-failure.png'), join(repoRoot, 'docs', 'screenshots', 'release-failure.png'));

    // Roll back offers the active release's predecessor; with restore-data it says what is lost and wants the phrase.
    await card.locator('[data-testid="failure-rollback"]').click();
    await page.waitForSelector('dialog[open]');
    expect(await page.textContent('#confirm-title')).toContain(releases.v1!.id.slice(0, 14));
    await page.check('#rollback-restore-data');
    const warning = (await page.textContent('#restore-warning')) ?? '';
    expect(warning).toContain(`replaces its database with the snapshot taken before release ${releases.v2!.id} went live`);
    expect(warning).toMatch(/Lost:\s+every database write made since \S+ \(the current database is [\d.]+ [KMG]?i?B\); this cannot be undone/);
    expect(await page.textContent('#confirm-expected')).toBe(`restore ${project.slug}`);
    expect(await page.isDisabled('#confirm-submit')).toBe(true);
    await page.fill('#confirm-phrase', `restore ${project.slug} `);
    expect(await page.isDisabled('#confirm-submit')).toBe(true);
    await page.fill('#confirm-phrase', `restore ${project.slug}`);
    expect(await page.isEnabled('#confirm-submit')).toBe(true);
    await page.screenshot({ path: join(shotsDir, 'rollback-restore-data.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog[open]', { state: 'detached' });

    // View logs: that release's lines only.
    await card.locator('[data-testid="failure-logs"]').click();
    await page.waitForURL((u) => u.pathname === `/projects/${project.slug}/logs` && u.searchParams.get('release') === releases.bad!.id);
    expect(await page.textContent('#log-release')).toContain('Lines of release');
    await expect.poll(() => page.textContent('#log-lines'), { timeout: 15_000 }).toContain('failing-health listening');
    expect(await page.textContent('#log-lines')).not.toContain('healthy listening');
  }, 90_000);

  it('the releases list shows the failure with its reason; the activity feed reads as sentences', async () => {
    await page.goto(`${platform.url}/projects/${project.slug}/releases`);
    const row = page.locator(`tr[data-release="${releases.bad!.id}"][data-status="failed"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Deploy failed at health: /healthz did not answer 2xx');
    expect(await row.locator('[data-testid="failure-code"]').textContent()).toBe('SVC_HEALTH_CHECK_FAILED');
    expect(await row.locator('[data-testid="failure-hint"]').textContent()).toBe(errorCodes.SVC_HEALTH_CHECK_FAILED.hint.replaceAll('`', ''));
    await row.locator('summary').click();
    expect(await row.locator('[data-testid="failure-output"]').textContent()).toContain('failing-health listening on');
    expect(await row.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    await page.goto(`${platform.url}/projects/${project.slug}/activity`);
    const failed = page.locator('#audit-feed li[data-kind="release.fail"]');
    await failed.waitFor();
    const sentence = (await failed.locator('.sentence').textContent()) ?? '';
    expect(sentence).toMatch(/^Deploy of release rel_\S+ failed at health: \/healthz did not answer 2xx .*SVC_HEALTH_CHECK_FAILED; release \S+ kept serving$/);
    expect(await failed.locator('.sentence a').first().getAttribute('href')).toBe(`/projects/${project.slug}/releases`);
    const activated = (await page.locator('#audit-feed li[data-kind="release.activate"]').first().locator('.sentence').textContent()) ?? '';
    expect(activated).toMatch(/^ana@example.com \(token test support\) deployed release \S+, replacing release \S+$/); // the token-created actor name
    expect(await page.textContent('#audit-feed')).not.toContain('[object');
  }, 60_000);

  it('"Link repository" is disabled without a GitHub App and says what to configure', async () => {
    await page.goto(`${platform.url}/projects/${project.slug}/github`);
    await page.waitForSelector('#github-app-missing');
    expect(await page.isDisabled('#github-link-save')).toBe(true);
    expect(await page.getAttribute('#github-link-save', 'aria-describedby')).toBe('github-app-missing');
    const text = (await page.textContent('#github-app-missing')) ?? '';
    for (const needed of ['No GitHub App is configured', 'APP_ID', 'PRIVATE_KEY', 'WEBHOOK_SECRET', 'app.yml', 'docs/github.md'])
      expect(text).toContain(needed);
  }, 60_000);

  it('deleting the project says what is lost and needs the phrase and the acknowledgement', async () => {
    await page.goto(`${platform.url}/projects/${project.slug}/settings`);
    await page.click('#delete-project');
    await page.waitForSelector('dialog[open]');
    await expect.poll(() => page.textContent('#delete-loss')).toContain('Releases: 3 releases with their rollback snapshots');
    const loss = (await page.textContent('#delete-loss')) ?? '';
    expect(loss).toMatch(/Database: the database \([\d.]+ [KMG]?i?B\)/);
    expect(loss).toContain('Backups: 0 backups kept on this platform');
    expect(loss).toContain('Domains: 0 custom domains, which stop routing at once');
    expect(await page.textContent('dialog[open]')).toContain('Off-host copies');
    expect(await page.textContent('#confirm-expected')).toBe(`delete-site ${project.slug}`);
    await page.fill('#confirm-phrase', `delete-site ${project.slug}`);
    expect(await page.isDisabled('#confirm-submit')).toBe(true); // the acknowledgement is still missing
    await page.check('#confirm-acknowledge');
    expect(await page.isEnabled('#confirm-submit')).toBe(true);
    await page.screenshot({ path: join(shotsDir, 'delete-project-dialog.png') });
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog[open]', { state: 'detached' });
    expect((await owner.api<{ project: { id: string } }>('GET', `/api/projects/${project.id}`)).project.id).toBe(project.id);
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
  }, 60_000);
});
