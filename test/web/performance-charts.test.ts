// The project page's performance charts in headless Chromium against a real control plane and its
// ingress on loopback: svc's own 503 (no active release) and the app's 500 are drawn as separate
// series, every chart names its unit on the axis and in the legend, the chart code is fetched only
// by the page that draws charts (with a loading state while it arrives), and a project without
// traffic shows the empty state instead of charts.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { metricsResponseSchema, type MetricsResponse } from '../../src/ingress/contract.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { startUpstream, type UpstreamProcess } from '../ingress/support.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { signInThroughUi, watchPageErrors } from '../support/console-page.js';
import { repoRoot } from '../support/repo-root.js';

const gate = chromiumGate('performance charts');
const shotsDir = join(repoRoot, 'test-results', 'screenshots');

let root: string;
let plane: ControlPlane;
let url: string;
let port: number;
let upstream: UpstreamProcess;
let browser: Browser;
let account: TestAccount;
const pageErrors: string[] = [];

async function createProject(slug: string): Promise<{ id: string; slug: string }> {
  return (await account.session<{ project: { id: string; slug: string } }>('POST', '/api/projects', { name: slug, slug })).project;
}

async function viaIngress(slug: string, path: string): Promise<number> {
  const res = await request(`${url}${path}`, { headers: { host: `${slug}.localhost:${port}` } });
  await res.body.dump();
  return res.statusCode;
}

const legend = async (page: Page, chart: string) => {
  const rows = page.locator(`#${chart} .u-legend .u-series`);
  const labels = await rows.locator('.u-label').allTextContents();
  const values = await rows.locator('.u-value').allTextContents();
  return Object.fromEntries(labels.map((label, i) => [label, values[i] ?? '']));
};

describe.skipIf(gate.skip)('performance charts', () => {
  beforeAll(async () => {
    gate.assertPresent();
    root = await mkdtemp(join(tmpdir(), 'svc-console-charts-'));
    const config = testPlatformConfig({ dataDir: join(root, 'data'), publicUrl: null, logLevel: 'silent' });
    [plane, upstream, browser] = await Promise.all([
      buildControlPlane({ config, logger: createLogger({ level: 'silent' }) }),
      startUpstream('charts'),
      launchChromium(),
      ensureConsoleBuilt(),
    ]);
    await plane.app.listen({ host: '127.0.0.1', port: 0 });
    port = (plane.app.server.address() as { port: number }).port;
    url = `http://127.0.0.1:${port}`;
    account = await bootstrapAccount(url, { email: 'owner@example.com' });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await plane?.close();
    await upstream?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("draws svc's 503 apart from the app's 5xx, with units, and loads the charts only where they are drawn", async () => {
    const project = await createProject('charted');
    await createProject('quiet');
    // No release yet: the ingress answers 503 itself. Then a release whose app answers 500 twice and 200 three times.
    expect(await viaIngress('charted', '/')).toBe(503);
    await plane.ingress.routes.switchUpstream(project.id, { host: '127.0.0.1', port: upstream.port }, 'rel_charts');
    for (const path of ['/status/500', '/status/500', '/whoami', '/whoami', '/whoami']) await viaIngress('charted', path);
    const metrics: MetricsResponse = metricsResponseSchema.parse(await account.api('GET', `/api/projects/${project.id}/metrics?window=1h`));
    expect(metrics.totals).toMatchObject({ requests: 6, errors: 2, platform: 1 });

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPageErrors(page, pageErrors);
    const scripts: string[] = [];
    page.on('request', (r) => void (r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname)));
    await signInThroughUi(page, url, account);
    const isChart = (path: string) => /\/assets\/metric-chart-[^/]+\.js$/.test(path);
    expect(scripts.filter(isChart), 'sign-in and dashboard fetch no chart code').toEqual([]);

    // A project without traffic: the empty state, and still no chart code.
    await page.goto(`${url}/projects/quiet`);
    await page.locator('#metrics-totals').waitFor();
    expect(await page.textContent('.card:has(#perf-title) .empty-title')).toBe('No traffic in this window');
    expect(await page.locator('.chart').count()).toBe(0);
    expect(scripts.filter(isChart)).toEqual([]);

    // The charted project: a loading state while the chart code arrives (held back here), then the charts.
    let releaseChart!: () => void;
    const chartHeld = new Promise<void>((resolve) => (releaseChart = resolve));
    await page.route(/\/assets\/metric-chart-[^/]+\.js$/, async (route) => {
      await chartHeld;
      await route.continue();
    });
    await page.goto(`${url}/projects/charted`);
    await expect.poll(() => page.textContent('.card:has(#perf-title)')).toContain('Loading charts…');
    releaseChart();
    await page.locator('#chart-requests canvas').waitFor();
    expect(scripts.filter(isChart)).toHaveLength(1);
    expect(await page.textContent('#total-platform')).toBe('1');

    // The legend pins the newest point with traffic: read that point from the API to compare.
    const newest = [...metrics.series].reverse().find((p) => p.requests > 0)!;
    const requests = await legend(page, 'chart-requests');
    expect(requests).toEqual({
      Time: expect.any(String),
      requests: `${newest.requests} req / min`,
      'app 5xx': `${newest.errors} req / min`,
      'answered by svc': `${newest.platform} req / min`,
    });
    expect(newest.errors + newest.platform, 'both kinds landed in the pinned minute, or the test runs across a minute').toBeGreaterThan(0);

    // Units: beside every y axis (the caption names it; uPlot draws the axis label on the canvas) and in every legend value.
    expect(await page.textContent('#chart-requests figcaption')).toContain('(requests / min)');
    expect(await page.textContent('#chart-error-rate figcaption')).toContain('(%)');
    expect(await page.textContent('#chart-latency figcaption')).toContain('(ms)');
    expect(await page.textContent('#chart-bytes figcaption')).toContain('(bytes/s)');
    expect((await legend(page, 'chart-error-rate'))['app 5xx rate']).toMatch(/^\d+(\.\d+)? %$/);
    for (const value of Object.entries(await legend(page, 'chart-latency')).filter(([k]) => k !== 'Time')) expect(value[1]).toMatch(/^(\d+(\.\d+)? (ms|s)|—)$/);
    expect((await legend(page, 'chart-bytes'))['bytes/s']).toMatch(/ ?[KMG]?i?B\/s$/);
    await mkdir(shotsDir, { recursive: true });
    await page.locator('.card:has(#perf-title)').screenshot({ path: join(shotsDir, 'performance-charts.png') });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
