// The server-rendered pages look like the console: every colour and spacing token their
// stylesheet defines has the console's value, in the light and the dark scheme.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagesStyle } from '../../src/identity/pages/pages-style.js';
import { repoRoot } from '../support/repo-root.js';

// The custom properties of the first `:root { … }` block, and of the one inside the dark-scheme media query.
function tokens(css: string): { light: Map<string, string>; dark: Map<string, string> } {
  const block = (text: string) => new Map([...text.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
  const light = /:root\s*{([^}]*)}/.exec(css);
  const dark = /@media \(prefers-color-scheme: dark\)\s*{\s*:root\s*{([^}]*)}/.exec(css);
  if (!light || !dark) throw new Error('no :root block or no dark-scheme :root block');
  return { light: block(light[1]!), dark: block(dark[1]!) };
}

describe('server-rendered page style', () => {
  it("defines only the console's tokens, with the console's values, and every token it uses", async () => {
    const console = tokens(await readFile(join(repoRoot, 'web', 'src', 'styles.css'), 'utf8'));
    const pages = tokens(pagesStyle);
    expect(pages.light.size).toBeGreaterThan(10);
    for (const scheme of ['light', 'dark'] as const) {
      for (const [name, value] of pages[scheme]) expect(`${scheme} ${name}: ${value}`).toBe(`${scheme} ${name}: ${console[scheme].get(name)}`);
    }
    // Every colour the console changes for dark mode is changed here too (when the pages use it).
    for (const name of pages.light.keys()) if (console.dark.has(name)) expect(pages.dark.has(name), `dark ${name}`).toBe(true);
    for (const [, name] of pagesStyle.matchAll(/var\((--[\w-]+)\)/g)) expect(pages.light.has(name!), `${name} used but not defined`).toBe(true);
  });
});
