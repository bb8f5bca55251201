import { launchChromium } from '../support/chromium.js';
import { startPlatform } from '../support/start-platform.js';
const [platform, browser] = await Promise.all([startPlatform(), launchChromium()]);
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.log('CONSOLE', m.type(), m.text()));
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  await page.goto(`${platform.url}/`);
  await page.waitForURL((u) => u.pathname === '/sign-in');
  await page.waitForSelector('#email');
  console.log('URL', page.url());
  await page.waitForTimeout(1000);
  await page.screenshot({ path: '/tmp/probe.png' });
} finally {
  await browser.close();
  await platform.stop();
}
