// axe-core in a real page: the engine is evaluated through the DevTools protocol (which the
// page's CSP does not govern, so the CSP under test stays as strict as production), then run on
// the whole document. Violations come back as short lines a failing assertion can print.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

let source: Promise<string> | undefined;

function axeSource(): Promise<string> {
  source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}

/** One violated rule: its id, impact, help text and the first few offending elements. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Run axe (WCAG 2.x A/AA and best practices) on `page`'s document; every violation found. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const present = await page.evaluate(() => 'axe' in window);
  if (!present) await page.evaluate(await axeSource());
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: RunOptions): Promise<AxeResults> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`),
    }));
  });
}

/** Violations as lines for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.id} [${v.impact ?? '?'}] ${v.help}\n    ${v.targets.join('\n    ')}`).join('\n');
}
