// Shared steps of the console browser tests: collect browser errors and sign in through the UI.
import type { ConsoleMessage, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestAccount } from './account.js';

/** Push every console error (unless `allow` matches) and uncaught page error into `errors`. */
export function watchPageErrors(page: Page, errors: string[], allow: RegExp | null = null): void {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' && !(allow && allow.test(message.text()))) errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
}

/** Sign in on the console's sign-in page and wait until the header shows the account. */
export async function signInThroughUi(page: Page, baseUrl: string, account: TestAccount): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.fill('#email', account.email);
  await page.fill('#password', account.password);
  await page.click('#submit');
  await page.waitForURL((u) => u.pathname === '/');
  await expect.poll(() => page.textContent('#signed-in-as')).toBe(account.email);
}
