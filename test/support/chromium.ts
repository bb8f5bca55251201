// Headless Chromium for browser tests, through playwright-core, never a downloaded browser: the
// binary named by SVC_CHROMIUM, else `chromium` on PATH. A suite that launches it takes a
// chromiumGate() first, so a host without Chromium skips it with a warning and CI fails instead.
import { isAbsolute } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { findExecutable, isExecutable } from '../../src/core/find-executable.js';
import { commandComponent, requireComponents, type Component, type ComponentGate } from './require-components.js';

/** Flags that keep headless Chromium quiet and working inside containers. */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Where Chromium is: SVC_CHROMIUM (a path, or a name looked up on PATH), else `chromium` on PATH;
 * null when neither is an executable file. Playwright needs the absolute path.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const wanted = env.SVC_CHROMIUM || 'chromium';
  if (isAbsolute(wanted) || wanted.includes('/')) return isExecutable(wanted) ? wanted : null;
  return findExecutable(wanted, env.PATH ?? '');
}

/** Chromium as a component: found (see findChromium) and `--version` exits 0. */
export function chromiumComponent(): Component {
  const path = findChromium();
  if (path === null) {
    const wanted = process.env.SVC_CHROMIUM || 'chromium';
    return { name: 'chromium', probe: () => `${wanted} is not an executable file or on PATH (set SVC_CHROMIUM to the browser binary)` };
  }
  return commandComponent('chromium', [path, '--version']);
}

/** The gate of a suite that launches Chromium: `describe.skipIf(gate.skip)` and `gate.assertPresent()` in beforeAll. */
export function chromiumGate(suite: string): ComponentGate {
  return requireComponents(suite, [chromiumComponent()]);
}

/** Start a headless Chromium; the caller closes it (`await browser.close()`) in afterAll. */
export function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === null) throw new Error('Chromium not found: set SVC_CHROMIUM or put chromium on PATH (the suite should take a chromiumGate)');
  return chromium.launch({ executablePath, headless: true, args: chromiumArgs });
}
