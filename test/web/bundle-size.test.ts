// The console's first load stays within 60 KB of gzipped JavaScript (see test/support/first-load.ts
// for what counts). The arithmetic is checked on made-up builds first, so the check demonstrably
// fails above the budget; then the real web/dist, built from the current sources, is measured.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { FIRST_LOAD_BUDGET_BYTES, firstLoadFiles, firstLoadReport, htmlScripts, type Manifest } from '../support/first-load.js';
import { repoRoot } from '../support/repo-root.js';

const dist = join(repoRoot, 'web', 'dist');

const html = (body: string) => `<!doctype html><html><head>${body}<link rel="stylesheet" crossorigin href="/assets/index.css"></head><body></body></html>`;

describe('first-load arithmetic', () => {
  const manifest: Manifest = {
    'index.html': { file: 'assets/index.js', imports: ['_shared.js'], dynamicImports: ['src/components/metric-chart.tsx'] },
    '_shared.js': { file: 'assets/shared.js', imports: ['_vendor.js'] },
    '_vendor.js': { file: 'assets/vendor.js' },
    'src/components/metric-chart.tsx': { file: 'assets/metric-chart.js', imports: ['_shared.js'] },
  };

  it('counts the module script, modulepreloads and static imports, never dynamic imports or stylesheets', () => {
    const page = html('<script type="module" crossorigin src="/assets/index.js"></script><link rel="modulepreload" crossorigin href="/assets/shared.js">');
    expect(htmlScripts(page)).toEqual(['assets/index.js', 'assets/shared.js']);
    expect(firstLoadFiles(page, manifest).sort()).toEqual(['assets/index.js', 'assets/shared.js', 'assets/vendor.js']);
  });

  it('fails a build over 60 000 bytes and passes one at the budget', () => {
    const page = html('<script type="module" src="/assets/index.js"></script>');
    const sizes: Record<string, number> = { 'assets/index.js': 40_000, 'assets/shared.js': 15_000, 'assets/vendor.js': 5_001 };
    const over = firstLoadReport(firstLoadFiles(page, manifest), (f) => sizes[f]!);
    expect(over).toMatchObject({ totalBytes: 60_001, budgetBytes: 60_000, withinBudget: false });
    sizes['assets/vendor.js'] = 5_000;
    expect(firstLoadReport(firstLoadFiles(page, manifest), (f) => sizes[f]!).withinBudget).toBe(true);
  });
});

describe('web/dist', () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
  }, 240_000);

  it(`first load is at most ${FIRST_LOAD_BUDGET_BYTES} bytes of gzipped JavaScript, and the charts are not in it`, () => {
    const page = readFileSync(join(dist, 'index.html'), 'utf8');
    const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
    const files = firstLoadFiles(page, manifest);
    expect(files.length).toBeGreaterThan(0);
    // Measured here rather than read from the .gz copies, so a build without them is still measured.
    const report = firstLoadReport(files, (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
    const lines = report.files.map((f) => `${f.file} ${f.gzipBytes} B`).join(', ');
    console.log(`console first load: ${report.totalBytes} B gzipped JavaScript (budget ${report.budgetBytes} B): ${lines}`);
    expect(report.withinBudget, `first load ${report.totalBytes} B > ${report.budgetBytes} B: ${lines}`).toBe(true);

    const charts = Object.entries(manifest).find(([key]) => key.endsWith('components/metric-chart.tsx'))?.[1];
    expect(charts, 'the chart module is its own chunk').toBeDefined();
    expect(files).not.toContain(charts!.file);
    const chartCode = readFileSync(join(dist, charts!.file), 'utf8');
    expect(chartCode, 'uPlot is in the chart chunk').toContain('"uplot"');
  });
});
