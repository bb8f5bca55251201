// Screenshots taken by the browser tests: always written to test-results/screenshots/; with
// SVC_UPDATE_DOC_SCREENSHOTS=1 the ones the docs show are also copied to docs/screenshots/.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from './repo-root.js';

const shotsDir = join(repoRoot, 'test-results', 'screenshots');
const docShotsDir = join(repoRoot, 'docs', 'screenshots');

/** Save a PNG of `page` as test-results/screenshots/<name>.png (the whole page unless `fullPage` is false). */
export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage });
}

/** With SVC_UPDATE_DOC_SCREENSHOTS=1, copy the named screenshots into docs/screenshots/; otherwise nothing. */
export async function publishDocScreenshots(names: readonly string[]): Promise<void> {
  if (process.env.SVC_UPDATE_DOC_SCREENSHOTS !== '1') return;
  await mkdir(docShotsDir, { recursive: true });
  for (const name of names) await copyFile(join(shotsDir, `${name}.png`), join(docShotsDir, `${name}.png`));
}
