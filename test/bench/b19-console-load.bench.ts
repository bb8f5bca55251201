// B19: the console's first load, as a browser with an empty cache sees it. Headless Chromium (never a
// downloaded one), a fresh browser context per sample, against one control plane serving the built
// console (web/dist). Each sample is timed by the page itself: an init script checks on every animation
// frame (frames are only produced once the page can render) whether the awaited element is on screen,
// and records performance.now(), which counts from the navigation's start. Both sides of a row are
// timed by the same script. Rows:
//  (1) /sign-in (the console) until #email is visible and enabled, vs the server-rendered /login until
//      its #email is; target <= 3x;
//  (2) a signed-in /projects/<slug> (one healthy release) until #site-health shows the verdict (not
//      "Checking…"; the charts load lazily and are not waited for), vs the signed-in server-rendered
//      /device until its #code input is visible: the one server page that, like the overview's API
//      calls, resolves the session cookie; target <= 4x (after its script, the console fetches the
//      session, then the project, then its releases, one after another);
//  (3) first-load gzipped JavaScript (test/support/first-load.ts) against the 60 KB budget: a size, so
//      no rounds.
// The server pages load a small deferred script of their own; their inputs show without it.
// SVC_B19_ROUNDS (default 7) interleaved rounds; 20–40 s on two cores (one release deployed first).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { bootstrapAccount } from '../support/account.js';
import { chromiumGate, launchChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { deployFixture } from '../support/deploy-fixture.js';
import { firstLoadFiles, firstLoadReport, type Manifest } from '../support/first-load.js';
import { repoRoot } from '../support/repo-root.js';
import { startPlatform } from '../support/start-platform.js';
import type { BenchResult } from './bench-types.js';
import { pairedRow } from './paired-row.js';
import { interleave, median, roundsFrom } from './rounds.js';

const ROUNDS = roundsFrom(process.env.SVC_B19_ROUNDS, 7);
const SIGN_IN_TARGET = 3;
const OVERVIEW_TARGET = 4;
const SAMPLE_TIMEOUT_MS = 30_000;
const SLUG = 'bench-b19';

/** What a sample waits for: an element on screen, enabled (inputs) and not showing `notText` (when not null). */
interface Probe {
  selector: string;
  enabled: boolean;
  notText: string | null;
}

/** What the page recorded when the probe first held: the time and the requests finished by then. */
interface Sample {
  ready: number;
  resources: { path: string; start: number; end: number; bytes: number }[];
}

// Runs in the page before any page script. Kept as source text: the function form would be serialised
// from tsx's output, whose name-keeping helper (__name) does not exist in the page.
function readyProbe(probe: Probe): string {
  return `(() => {
  const probe = ${JSON.stringify(probe)};
  const check = () => {
    const el = document.querySelector(probe.selector);
    const shown = el !== null && el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
    const ok = shown && (!probe.enabled || el.matches(':enabled')) && (probe.notText === null || !(el.textContent || '').includes(probe.notText));
    if (!ok) return void requestAnimationFrame(check);
    const ready = performance.now();
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
    const resources = entries.map((r) => ({ path: r.entryType === 'navigation' ? '(page)' : new URL(r.name).pathname, start: r.startTime, end: r.responseEnd, bytes: r.encodedBodySize }));
    window.b19Sample = { ready, resources };
  };
  requestAnimationFrame(check);
})();`;
}

/** One cold load of `url` in a fresh context (with `cookie` when given): the page's own timing. */
async function coldLoad(browser: Browser, url: string, probe: Probe, cookie?: { name: string; value: string }): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    if (cookie) await context.addCookies([{ ...cookie, domain: new URL(url).hostname, path: '/', httpOnly: true, sameSite: 'Lax' }]);
    await context.addInitScript({ content: readyProbe(probe) });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(url, { waitUntil: 'commit', timeout: SAMPLE_TIMEOUT_MS });
    if (!response?.ok()) throw new Error(`B19: ${url} answered ${response?.status()}`);
    const handle = await page
      .waitForFunction(() => (window as unknown as { b19Sample?: Sample }).b19Sample, undefined, { timeout: SAMPLE_TIMEOUT_MS })
      .catch(async (error: Error) => {
        throw new Error(`B19: ${page.url()} never showed ${probe.selector}: ${(await page.textContent('body').catch(() => '')) ?? ''} ${errors.join('; ')}`, {
          cause: error,
        });
      });
    if (new URL(page.url()).pathname !== new URL(url).pathname) throw new Error(`B19: ${url} ended at ${page.url()}`);
    return (await handle.jsonValue()) as Sample;
  } finally {
    await context.close();
  }
}

/** Time one side of a row and keep its samples for the breakdown. */
function timed(samples: Sample[], load: () => Promise<Sample>): () => Promise<number> {
  return async () => {
    const sample = await load();
    samples.push(sample);
    return sample.ready;
  };
}

/** Median start and finish time and bytes per request path over the samples (what the page waited for, in order). */
function breakdown(label: string, samples: Sample[]): string {
  const byPath = new Map<string, { starts: number[]; ends: number[]; bytes: number[] }>();
  for (const sample of samples) {
    for (const r of sample.resources) {
      // Fingerprinted chunks and ids differ only by name; keep the path shape.
      const path = r.path.replace(/-[\w-]{8}\.(js|css)$/, '.$1');
      const entry = byPath.get(path) ?? { starts: [], ends: [], bytes: [] };
      entry.starts.push(r.start);
      entry.ends.push(r.end);
      entry.bytes.push(r.bytes);
      byPath.set(path, entry);
    }
  }
  const rows = [...byPath]
    .map(([path, e]) => ({ path, start: median(e.starts), end: median(e.ends), bytes: median(e.bytes), seen: e.ends.length }))
    .sort((a, b) => a.end - b.end)
    .map(
      (r) => `${r.path} ${r.start.toFixed(0)}–${r.end.toFixed(0)} ms (${r.bytes} B${r.seen < samples.length ? `, ${r.seen}/${samples.length} samples` : ''})`,
    );
  const ready = samples.map((s) => s.ready.toFixed(0)).join(' ');
  return `  B19 ${label}: ready at ${ready} ms; requests finished by then, median start–end: ${rows.join(', ')}\n`;
}

/** Row 3: the gzipped JavaScript of the first load, measured as the bundle-size test measures it. */
function weightRow(): BenchResult {
  const dist = join(repoRoot, 'web', 'dist');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const files = firstLoadFiles(readFileSync(join(dist, 'index.html'), 'utf8'), manifest);
  const report = firstLoadReport(files, (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
  process.stderr.write(`  B19 first load: ${report.files.map((f) => `${f.file} ${f.gzipBytes} B`).join(', ')}\n`);
  return {
    id: 'B19',
    name: 'console first-load JavaScript, gzip -9 (value/budget; a size: no rounds)',
    value: report.totalBytes,
    unit: 'B',
    baseline: report.budgetBytes,
    baselineName: 'budget',
    ratio: report.totalBytes / report.budgetBytes,
    target: '<= 1.0x',
    pass: report.withinBudget,
  };
}

/** Run B19 and return its rows. */
export default async function b19(): Promise<BenchResult[]> {
  // A bench has no skip: without Chromium it stops with what is missing.
  chromiumGate('B19 console load').assertPresent();
  await ensureConsoleBuilt();
  const work = await mkdtemp(join(tmpdir(), 'svc-bench-b19-'));
  const [platform, browser] = await Promise.all([startPlatform({ readyTimeoutMs: 60_000 }), launchChromium()]);
  try {
    const account = await bootstrapAccount(platform.url);
    await deployFixture(platform.url, account, { slug: SLUG, workDir: work });
    const split = account.cookie.indexOf('=');
    const cookie = { name: account.cookie.slice(0, split), value: account.cookie.slice(split + 1) };
    const email = { selector: '#email', enabled: true, notText: null };
    const signIn = (): Promise<Sample> => coldLoad(browser, `${platform.url}/sign-in`, email);
    const login = (): Promise<Sample> => coldLoad(browser, `${platform.url}/login`, email);
    const health = { selector: '#site-health', enabled: false, notText: 'Checking' };
    const overview = (): Promise<Sample> => coldLoad(browser, `${platform.url}/projects/${SLUG}`, health, cookie);
    const device = (): Promise<Sample> => coldLoad(browser, `${platform.url}/device`, { selector: '#code', enabled: true, notText: null }, cookie);
    // One warm-up of each: the server reads and compresses its files once, the browser starts its processes.
    for (const load of [signIn, login, overview, device]) await load();

    const samples = { signIn: [] as Sample[], login: [] as Sample[], overview: [] as Sample[], device: [] as Sample[] };
    const first = await interleave(ROUNDS, timed(samples.signIn, signIn), timed(samples.login, login));
    const second = await interleave(ROUNDS, timed(samples.overview, overview), timed(samples.device, device));
    process.stderr.write(
      breakdown('/sign-in', samples.signIn) +
        breakdown('/login', samples.login) +
        breakdown(`/projects/${SLUG}`, samples.overview) +
        breakdown('/device', samples.device),
    );
    const target = (limit: number) => ({ text: `<= ${limit}x`, pass: (r: number) => r <= limit });
    return [
      pairedRow(
        'B19',
        'console /sign-in, cold cache: navigation → #email usable (time, value/baseline)',
        first,
        'ms',
        'server-rendered /login',
        target(SIGN_IN_TARGET),
      ),
      pairedRow(
        'B19',
        'console project overview signed in, cold cache: navigation → health shown, charts not awaited (time, value/baseline)',
        second,
        'ms',
        'server-rendered /device, signed in',
        target(OVERVIEW_TARGET),
      ),
      weightRow(),
    ];
  } finally {
    await browser.close();
    await platform.stop();
    await rm(work, { recursive: true, force: true });
  }
}
