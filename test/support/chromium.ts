// Launch Debian's Chromium headless through playwright-core with the flags from HELPERS.md.
// Never downloads a browser: executablePath is fixed to /usr/bin/chromium (override with SVC_CHROMIUM).
import { chromium, type Browser } from 'playwright-core';

/** Flags that keep headless Chromium quiet and working inside containers. */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Start a headless Chromium; the caller closes it (`await browser.close()`) in afterAll. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.SVC_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: chromiumArgs });
}
