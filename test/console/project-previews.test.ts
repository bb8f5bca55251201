// The project overview's Previews card, against a real control plane (child process on loopback)
// whose project is linked to a repository on a local fake GitHub, in headless Chromium: signed
// pull_request deliveries create two previews, and the card lists them (#n, title, short commit,
// status, the preview's address as a link) with the live limit and idle stop; a project without
// previews says how one starts; a preview's own page names its pull request and production project.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { previewListResponseSchema } from '../../src/previews/contract.js';
import type { z } from 'zod';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { axeViolations, describeViolations } from '../support/axe.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { appCredentials, githubEnv, type AppCredentials } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { example, pullRequestPayload, signedDelivery } from '../support/fake-github/webhooks.js';
import { shot } from '../support/screenshots.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const REPO = 'acme/web-shop';
const REPO_ID = 777201;
const INSTALLATION = 55701;
const SLUG = 'preview-demo';
const SHA = { 12: 'c0ffee1'.padEnd(40, 'a'), 15: 'deadbee'.padEnd(40, 'b') } as const;

const gate = chromiumGate('console: project previews');

let fake: FakeGithub;
let creds: AppCredentials;
let platform: StartedPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let owner: TestAccount;
let root: string;
let projectId: string;
const pageErrors: string[] = [];

async function deliver(event: string, payload: unknown): Promise<void> {
  const d = signedDelivery(creds.webhookSecret, event, payload);
  const res = await fetch(`${platform.url}/api/github/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  expect(res.status, `${event} delivery`).toBe(202);
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}\nserver:\n${platform.logs().slice(-4000)}`);
}

beforeAll(async () => {
  gate.assertPresent();
  const build = ensureConsoleBuilt();
  root = await mkdtemp(join(tmpdir(), 'svc-console-previews-'));
  creds = appCredentials();
  fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
  await fake.listen();
  fake.install(INSTALLATION, 'acme', { [REPO]: REPO_ID });
  [platform, browser] = await Promise.all([startPlatform({ env: githubEnv(creds, fake.origin, { SVC_PREVIEW_LIMIT: '4' }) }), launchChromium(), build]);
  owner = await bootstrapAccount(platform.url, { email: 'ana@example.com', name: 'Ana' });
  projectId = (await owner.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Preview Demo', slug: SLUG })).project.id;
  await owner.api('POST', '/api/projects', { name: 'Quiet', slug: 'quiet' });

  const installed = example('installation', (p) => p.action === 'created');
  installed.installation.id = INSTALLATION;
  installed.installation.account.login = 'acme';
  installed.repositories = [{ id: REPO_ID, name: 'web-shop', full_name: REPO, private: true, node_id: 'R_2' }];
  await deliver('installation', installed);
  await until('the installation', async () =>
    (await owner.api<{ installations: { id: number }[] }>('GET', '/api/github/installations')).installations.some((x) => x.id === INSTALLATION),
  );
  await owner.api('PUT', `/api/projects/${projectId}/github`, { repository: REPO, branch: 'main' });
  for (const [number, title] of [
    [12, 'Checkout: show tax per line'],
    [15, 'New onboarding emails'],
  ] as const)
    await deliver(
      'pull_request',
      pullRequestPayload({ action: 'opened', number, sha: SHA[number], title, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION }),
    );
  await until('two previews', async () => (await previews()).previews.length === 2);

  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watchPageErrors(page, pageErrors);
}, 240_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await platform?.stop();
  await fake?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const previews = () => owner.api<z.infer<typeof previewListResponseSchema>>('GET', `/api/projects/${projectId}/previews`);

describe.skipIf(gate.skip)('console: project previews', () => {
  it("lists the project's previews: #n, title, commit, status and the address as a link, with the limit and idle stop", async () => {
    const list = await previews();
    await signInThroughUi(page, platform.url, owner);
    await page.goto(`${platform.url}/projects/${SLUG}`);
    const table = page.locator('#previews');
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((t) => t.trim());
    const [fifteen, twelve] = [list.previews.find((p) => p.number === 15)!, list.previews.find((p) => p.number === 12)!];
    expect(await cells(0)).toEqual(['#15', 'New onboarding emails', 'deadbee', fifteen.state, fifteen.url, 'never']);
    expect(await cells(1)).toEqual(['#12', 'Checkout: show tax per line', 'c0ffee1', twelve.state, twelve.url, 'never']);
    const link = rows.nth(1).getByRole('link', { name: twelve.url });
    expect(await link.getAttribute('href')).toBe(twelve.url);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await rows.nth(1).locator('code').getAttribute('title')).toBe(SHA[12]);
    expect(await rows.nth(1).locator('.pill').getAttribute('class')).toMatch(/pill-(idle|warn|ok|bad)/);
    expect(await page.textContent('#preview-limit')).toBe('2 of 4 live previews; idle previews stop after 30 minutes.');
    const violations = await axeViolations(page);
    expect(violations, describeViolations(violations)).toEqual([]);
    await shot(page, 'project-previews');
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('a project without previews says how one starts', async () => {
    await page.goto(`${platform.url}/projects/quiet`);
    const card = page.locator('section.project-previews');
    await card.getByText('No previews').waitFor();
    expect(await card.textContent()).toContain('A preview starts when a pull request is opened against the linked branch of the linked repository');
    expect(await page.textContent('#preview-limit')).toBe('0 of 4 live previews; idle previews stop after 30 minutes.');
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("a preview's own page names its pull request and links the production project", async () => {
    const twelve = (await previews()).previews.find((p) => p.number === 12)!;
    await page.goto(`${platform.url}/projects/${twelve.slug}`);
    const of = page.locator('#preview-of');
    await of.waitFor();
    expect((await of.textContent())?.replace(/\s+/g, ' ')).toContain(`This project is the preview of pull request #12 of ${SLUG}.`);
    await of.getByRole('link', { name: SLUG }).click();
    await page.waitForURL((u) => u.pathname === `/projects/${SLUG}`);
    await page.locator('#previews').waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
