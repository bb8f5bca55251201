// The console's Operations page against a real
// control plane (child process on loopback) with the monitor configured to a real webhook receiver on
// port 0, driven by headless Chromium. The first account signs in, a real upload of a fixture whose
// migration fails produces a failed deploy, "Run pass now" opens the incident and its (refused, so
// pending) notification, and a second account sees the "platform admin only" state.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../../src/ops/monitor/webhook-notifier.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { packFixture } from '../releases/release-support.js';

const SECRET = 'console-ops-webhook-secret-0123456789';
const shotsDir = join(repoRoot, 'test-results', 'screenshots');

const gate = chromiumGate('console operations page');

let platform: StartedPlatform;
let browser: Browser;
let receiver: Server;
let root: string;
let admin: TestAccount;
let other: TestAccount;
let project: { id: string; slug: string };
const received: { kind: string; valid: boolean }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  gate.assertPresent();
  // Build the console from the current sources (the platform serves web/dist).
  const build = ensureConsoleBuilt();
  root = await mkdtemp(join(tmpdir(), 'svc-console-ops-'));
  await mkdir(shotsDir, { recursive: true });
  // The webhook receiver refuses every alert (503), so deliveries stay pending with attempts and an error.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const valid = verifyWebhookSignature(SECRET, String(req.headers[WEBHOOK_TIMESTAMP_HEADER]), body, String(req.headers[WEBHOOK_SIGNATURE_HEADER]));
      received.push({ kind: (JSON.parse(body) as { kind: string }).kind, valid });
      res.writeHead(503).end('receiver down for the test');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const env = {
    SVC_REGISTRATION: 'public',
    SVC_OPS_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/svc`,
    SVC_OPS_WEBHOOK_SECRET: SECRET,
    SVC_OPS_INTERVAL_MS: 'false', // passes only through "Run pass now"
  };
  [platform, browser] = await Promise.all([startPlatform({ env }), launchChromium(), build]);
  admin = await bootstrapAccount(platform.url, { email: 'admin@example.com' }); // the first account: platform admin
  other = await bootstrapAccount(platform.url, { email: 'member@example.com' });
  const created = await admin.api<{ project: { id: string; slug: string } }>('POST', '/api/projects', {
    name: 'Ops Demo',
    slug: `ops-${randomUUID().slice(0, 6)}`,
  });
  project = created.project;

  // A real deploy that fails: the fixture's migration errors out.
  const artifact = await packFixture('bad-migration', root);
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
  expect(uploaded.release?.status).toBe('failed');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (root) await rm(root, { recursive: true, force: true });
});

function watch(page: Page, allow: RegExp | null = null): void {
  watchPageErrors(page, pageErrors, allow);
}

async function signIn(page: Page, account: TestAccount): Promise<void> {
  await signInThroughUi(page, platform.url, account);
}

describe.skipIf(gate.skip)('console operations page', () => {
  it('shows the platform admin the monitor state, runs a pass that opens the failed-deploy incident, and the audit export status', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watch(page);
    try {
      await signIn(page, admin);
      await page.getByRole('link', { name: 'Operations', exact: true }).click();
      await page.waitForURL((u) => u.pathname === '/operations');
      await expect.poll(() => page.textContent('#monitor-status')).toContain('manual passes only');
      expect(await page.textContent('main')).toContain('No pass has run');
      expect(await page.locator('#incidents-table').count()).toBe(0);
      await expect.poll(() => page.textContent('#audit-export-status')).toContain('Not configured');

      // Run a pass: the failed deploy becomes an open incident; the refused webhook leaves it pending.
      await page.click('#ops-run');
      await expect.poll(() => page.textContent('#ops-run-result'), { timeout: 30_000 }).toContain('Pass finished');
      expect(await page.textContent('#ops-run-result')).toContain('opened 1');
      const incident = page.locator('#incidents-table tr[data-kind="deployment.failed"]');
      await incident.waitFor();
      expect(await incident.getAttribute('data-state')).toBe('open');
      expect(await incident.textContent()).toContain(project.slug);
      expect(await incident.textContent()).toContain('failureCode=');
      const note = page.locator('#notifications-table tr[data-status="pending"]');
      await note.waitFor();
      expect(await note.textContent()).toContain('open');
      expect(await note.locator('td').nth(3).textContent()).toBe('1'); // attempts
      expect(await note.locator('td').nth(5).textContent()).toMatch(/503/);
      expect(await page.textContent('#last-pass')).toMatch(/Opened\s*1/);
      expect(received).toEqual([{ kind: 'deployment.failed', valid: true }]);
      await page.screenshot({ path: join(shotsDir, 'operations.png'), fullPage: true });

      // A second pass opens nothing new; the incident stays open while the deploy is still failed.
      await page.click('#ops-run');
      await expect.poll(() => page.textContent('#ops-run-result'), { timeout: 30_000 }).toContain('opened 0');
      expect(await page.locator('#incidents-table tr[data-state="open"]').count()).toBe(1);
      // The drills section follows the server: absent without a `drills` field (rendered when present, next test).
      const served = await admin.session<Record<string, unknown>>('GET', '/api/admin/operations');
      expect(await page.locator('#drills-title').count()).toBe('drills' in served ? 1 : 0);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('renders restore drill receipts from the drills field', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watch(page);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const drills = [
      {
        id: 'drl_1',
        projectId: project.id,
        releaseId: null,
        backupId: 'bak_1',
        startedAt: iso(now - 60_000),
        finishedAt: iso(now - 55_000),
        outcome: 'failed',
        checks: [{ name: 'home', path: '/', expected: 200, status: 500, ok: false }],
        code: 'SVC_OPS_DRILL_FAILED',
        error: 'GET / answered 500',
      },
      {
        id: 'drl_0',
        projectId: project.id,
        releaseId: null,
        backupId: 'bak_0',
        startedAt: iso(now - 3_600_000),
        finishedAt: iso(now - 3_590_000),
        outcome: 'passed',
        checks: [{ name: 'home', path: '/', expected: 200, status: 200, ok: true }],
        code: null,
        error: null,
      },
    ];
    // The real answer with these receipts as its `drills` field (as a server with drills running sends it).
    await page.route('**/api/admin/operations', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...((await response.json()) as object), drills } });
    });
    try {
      await signIn(page, admin);
      await page.goto(`${platform.url}/operations`);
      const failed = page.locator('#drills-table tr[data-drill-outcome="failed"]');
      await failed.waitFor();
      expect(await failed.textContent()).toContain('SVC_OPS_DRILL_FAILED');
      expect(await failed.textContent()).toContain('0/1 passed');
      expect(await page.locator('#drills-table tr[data-drill-outcome="passed"]').textContent()).toContain(project.slug);
      expect(await page.locator('#incidents-table tr[data-kind="deployment.failed"]').count()).toBe(1);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows another account the "platform admin only" state', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watch(page, /403 \(Forbidden\)/); // the browser logs the refused admin requests themselves
    try {
      await signIn(page, other);
      await page.goto(`${platform.url}/operations`);
      const state = page.locator('[data-state="admin-only"]');
      await state.waitFor();
      expect(await state.textContent()).toContain('Platform admin only');
      expect(await state.textContent()).toContain('SVC_PLATFORM_ADMIN_REQUIRED');
      expect(await page.locator('#ops-run').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
