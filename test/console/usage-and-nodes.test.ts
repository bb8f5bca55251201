// The console's usage cards (project overview, organization page) and the Operations page's runner
// node table against a real control plane (child process on loopback), driven by headless Chromium.
// A real upload of the healthy fixture plus requests through the ingress create the usage (the
// project quota is set below it, so the forecast warns); a node enrolled over HTTP appears in the table,
// and a refused (403) node list shows the "platform admin only" state inside the card.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageResponse, WorkspaceUsageResponse } from '../../src/ops/contract.js';
import { exhaustionText, forecastText, formatCount, labelsText, quotaText } from '../../web/src/lib/usage-text.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { packFixture } from '../releases/release-support.js';

const QUOTA = 10;
const shotsDir = join(repoRoot, 'test-results', 'screenshots');
const TRAFFIC = 12;

const gate = chromiumGate('console usage cards and runner nodes');

let platform: StartedPlatform;
let browser: Browser;
let root: string;
let admin: TestAccount;
let project: { id: string; slug: string; organizationId: string };
let orgSlug: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  // The text helpers below need no browser: when the browser suite skips, start nothing.
  if (gate.skip) return;
  gate.assertPresent();
  const build = ensureConsoleBuilt();
  root = await mkdtemp(join(tmpdir(), 'svc-console-usage-'));
  await mkdir(shotsDir, { recursive: true });
  const env = { SVC_REGISTRATION: 'public', SVC_PROJECT_MONTHLY_REQUESTS: String(QUOTA), SVC_OPS_INTERVAL_MS: 'false' };
  [platform, browser] = await Promise.all([startPlatform({ env }), launchChromium(), build]);
  admin = await bootstrapAccount(platform.url, { email: 'admin@example.com' }); // the first account: platform admin
  const created = await admin.api<{ project: { id: string; slug: string; organizationId: string } }>('POST', '/api/projects', {
    name: 'Usage Demo',
    slug: `use-${randomUUID().slice(0, 6)}`,
  });
  project = created.project;
  const orgs = await admin.api<{ organizations: { id: string; slug: string }[] }>('GET', '/api/orgs');
  orgSlug = orgs.organizations.find((o) => o.id === project.organizationId)?.slug ?? '';
  expect(orgSlug).not.toBe('');

  // A real deploy of the healthy fixture, then traffic through the ingress (the metered usage).
  const artifact = await packFixture('healthy', root);
  const upload = await fetch(`${platform.url}/api/projects/${project.id}/releases`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${admin.accessToken}`,
      'content-type': 'application/vnd.svc.deploy+gzip',
      'x-svc-artifact-digest': artifact.digest,
      'idempotency-key': `key-${randomUUID()}`,
    },
    body: new Uint8Array(artifact.bytes),
  });
  const uploaded = (await upload.json()) as { release?: { status: string } };
  expect(upload.status, JSON.stringify(uploaded)).toBe(201);
  expect(uploaded.release?.status, JSON.stringify(uploaded)).toBe('active');
  for (let i = 0; i < TRAFFIC; i++) {
    const response = await request(`${platform.url}/`, { headers: { host: `${project.slug}.localhost:${platform.port}` } });
    await response.body.text();
    expect(response.statusCode).toBe(200);
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

function watch(page: Page, allow: RegExp | null): void {
  watchPageErrors(page, pageErrors, allow);
}

async function signIn(page: Page, account: TestAccount): Promise<void> {
  await signInThroughUi(page, platform.url, account);
}

async function withPage(run: (page: Page) => Promise<void>, prepare?: (page: Page) => Promise<void>, allow: RegExp | null = null): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watch(page, allow);
  try {
    await prepare?.(page);
    await signIn(page, admin);
    await run(page);
    expect(pageErrors).toEqual([]);
  } finally {
    await context.close();
  }
}

describe('usage text helpers', () => {
  const forecast = {
    status: 'ok' as const,
    observationMs: 7_200_000,
    averageRatePerHour: 2,
    projectedPeriodTotal: 1440.4,
    estimatedExhaustionAt: null,
    warning: false,
  };
  it('says whether there is evidence, a quota and an exhaustion time', () => {
    expect(forecastText(forecast, formatCount)).toBe('projected 1440 this month');
    expect(forecastText({ ...forecast, status: 'insufficient-evidence' }, formatCount)).toBe('insufficient evidence (under an hour of data)');
    expect(quotaText(null, formatCount)).toBe('no quota');
    expect(quotaText(2048, (n) => `${n} B`)).toBe('2048 B');
    expect(exhaustionText(null)).toBe('—');
    expect(exhaustionText(Date.UTC(2026, 0, 1))).toMatch(/^20\d\d-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(labelsText({ os: 'linux', disk: 'ssd' })).toBe('disk=ssd, os=linux');
    expect(labelsText({})).toBe('—');
  });
});

describe.skipIf(gate.skip)('console usage cards and runner nodes', () => {
  it('shows the project usage this month with its quota, forecast status and warning', async () => {
    // The API is the reference: the card must show what it answers (traffic is done, so it is stable).
    await expect
      .poll(async () => (await admin.api<UsageResponse>('GET', `/api/projects/${project.id}/usage`)).usage.requests, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(TRAFFIC);
    const served = await admin.api<UsageResponse>('GET', `/api/projects/${project.id}/usage`);
    expect(served.forecast.requests.warning).toBe(true); // over the quota of 10
    expect(served.forecast.requests.status).toBe('insufficient-evidence'); // the platform is minutes old
    await withPage(async (page) => {
      await page.goto(`${platform.url}/projects/${project.slug}`);
      await page.locator('#project-usage-table').waitFor();
      expect(await page.textContent('#project-usage-title')).toBe('Usage this month');
      expect(await page.textContent('#project-usage-requests')).toBe(String(served.usage.requests));
      expect(await page.textContent('#project-usage-requests-quota')).toBe(String(QUOTA));
      expect(await page.textContent('#project-usage-requests-forecast')).toContain('insufficient evidence (under an hour of data)');
      expect(await page.textContent('#project-usage-requests-exhaustion')).toBe(exhaustionText(served.forecast.requests.estimatedExhaustionAt));
      expect(await page.textContent('#project-usage-transfer')).not.toBe('0 B');
      expect(await page.textContent('#project-usage-transfer-quota')).toBe('no quota');
      expect(await page.getAttribute('#project-usage-table tr[data-quantity="requests"]', 'data-warning')).toBe('true');
      expect(await page.textContent('#project-usage-warning')).toContain('warning');
      await page.locator('#project-usage-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shotsDir, 'project-usage.png') });
    });
  }, 90_000);

  it('shows the workspace usage with each project and no warning without a workspace quota', async () => {
    const served = await admin.api<WorkspaceUsageResponse>('GET', `/api/orgs/${orgSlug}/usage`);
    expect(served.usage.requests).toBeGreaterThanOrEqual(TRAFFIC);
    await withPage(async (page) => {
      await page.goto(`${platform.url}/orgs/${orgSlug}`);
      await page.locator('#workspace-usage-table').waitFor();
      expect(await page.textContent('#workspace-usage-requests')).toBe(String(served.usage.requests));
      expect(await page.textContent('#workspace-usage-requests-quota')).toBe('no quota');
      expect(await page.textContent('#workspace-usage-requests-forecast')).toContain('insufficient evidence');
      expect(await page.locator('#workspace-usage-warning').count()).toBe(0);
      expect(await page.textContent('#workspace-usage-status')).toContain('within quota');
      const row = page.locator(`#workspace-usage-projects tr[data-project="${project.slug}"]`);
      expect(await row.textContent()).toContain(String(served.projects.find((p) => p.projectId === project.id)?.requests));
      expect(await page.locator('#workspace-usage-truncated').count()).toBe(0);
      await page.screenshot({ path: join(shotsDir, 'workspace-usage.png'), fullPage: true });
    });
  }, 90_000);

  it('lists runner nodes enrolled over HTTP on the Operations page', async () => {
    const enroll = async (nodeId: string, labels: Record<string, string>, heartbeat: boolean) => {
      const { token } = await admin.api<{ token: string }>('POST', '/api/admin/nodes/registration-tokens', { expiresInMinutes: 5 });
      const enrolled = await fetch(`${platform.url}/api/nodes/enroll`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ nodeId, region: 'eu-test', capacity: 3, concurrency: 1, labels }),
      });
      const body = (await enrolled.json()) as { credential: string };
      expect(enrolled.status, JSON.stringify(body)).toBe(201);
      if (heartbeat) {
        const beat = await fetch(`${platform.url}/api/nodes/heartbeat`, {
          method: 'POST',
          headers: { authorization: `Bearer ${body.credential}`, 'content-type': 'application/json' },
          body: JSON.stringify({ draining: false, capacity: 3, labels }),
        });
        expect(beat.status).toBe(200);
        await beat.arrayBuffer();
      }
    };
    await enroll('node-ui-1', { os: 'linux', disk: 'ssd' }, true);
    await enroll('node-ui-2', {}, false);
    const served = await admin.api<{ nodes: { id: string; status: string }[] }>('GET', '/api/admin/nodes');
    await withPage(async (page) => {
      await page.goto(`${platform.url}/operations`);
      const first = page.locator('#nodes-table tr[data-node="node-ui-1"]');
      await first.waitFor();
      expect(await first.getAttribute('data-status')).toBe('ready');
      const text = (await first.textContent()) ?? '';
      expect(text).toContain('eu-test');
      expect(text).toContain('0 / 3');
      expect(text).toContain('disk=ssd, os=linux');
      expect(text).toContain('ago');
      const second = page.locator('#nodes-table tr[data-node="node-ui-2"]');
      expect(await second.getAttribute('data-status')).toBe(served.nodes.find((n) => n.id === 'node-ui-2')?.status);
      expect(await page.locator('#nodes-table tbody tr').count()).toBe(2);
      await page.locator('#nodes-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(shotsDir, 'runner-nodes.png') });
    });
  }, 90_000);

  it('shows "platform admin only" in the node card when the node list answers 403', async () => {
    // The operations state stays readable (the page renders); only the node list refuses, as for a token without admin rights.
    const refuse = async (page: Page) => {
      await page.route('**/api/admin/nodes', (route) =>
        route.fulfill({ status: 403, json: { error: { code: 'SVC_PLATFORM_ADMIN_REQUIRED', message: 'Only the platform administrator may do this.' } } }),
      );
    };
    await withPage(
      async (page) => {
        await page.goto(`${platform.url}/operations`);
        const state = page.locator('section[aria-labelledby="nodes-title"] [data-state="admin-only"]');
        await state.waitFor();
        expect(await state.textContent()).toContain('SVC_PLATFORM_ADMIN_REQUIRED');
        expect(await page.locator('#nodes-table').count()).toBe(0);
        // The rest of the page still renders (it loads apart from the node list, so wait for it).
        await page.locator('#monitor-status').waitFor({ timeout: 15_000 });
      },
      refuse,
      /403 \(Forbidden\)/, // the browser logs the refused request itself
    );
  }, 60_000);
});
