// A green CI run must mean every real component (Chromium, podman, bubblewrap, Caddy, Docker, network
// namespaces, root) was exercised. So a test may skip only through test/support/require-components.ts:
// a gate's `skip` (true only outside CI) with `assertPresent()` in the suite, or skipOrFail(ctx, what)
// inside a test. This check fails on any other skip: a hand-made condition in skipIf/runIf, a bare
// `.skip(` (it.skip, describe.skip, ctx.skip), or a hand-made "SKIPPING" warning. Chromium is found
// and launched only by test/support/chromium.ts, and a suite that launches it takes its chromiumGate.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = relative(root, fileURLToPath(import.meta.url));
/** The one place allowed to call ctx.skip and warn: the gate itself. */
const gateModule = 'test/support/require-components.ts';
/** The one place that finds the Chromium binary and launches it. */
const chromiumModule = 'test/support/chromium.ts';

/** Skips that do not depend on a host component, with why they are not a gate. */
const allowed: { file: string; snippet: string; reason: string }[] = [
  {
    file: 'test/e2e/tenant-isolation.test.ts',
    snippet: 'runIf(runner.victim !== undefined)',
    reason: 'an attack that exists only for runners whose victim listens on a port of its own inside its confinement; the runners themselves are gated',
  },
];

/** The argument text of each call `name(` in `text`, parentheses balanced. */
function callArguments(text: string, name: RegExp): { call: string; argument: string }[] {
  const found: { call: string; argument: string }[] = [];
  for (const match of text.matchAll(new RegExp(`${name.source}\\(`, 'g'))) {
    const open = match.index + match[0].length;
    let depth = 1;
    let at = open;
    while (at < text.length && depth > 0) {
      if (text[at] === '(') depth++;
      if (text[at] === ')') depth--;
      at++;
    }
    const argument = text.slice(open, at - 1);
    found.push({ call: `${match[0]}${argument})`, argument });
  }
  return found;
}

/** What is wrong with the skips of one test file (empty when each goes through a gate). */
function skipProblems(text: string): string[] {
  const problems: string[] = [];
  const conditional = callArguments(text, /\b(?:skipIf|runIf)/);
  for (const { call, argument } of conditional) {
    // A gate's skip, or a `skip` field carried from one through describe.each.
    if (!/\.skip\b|\bskip\b/.test(argument)) problems.push(`${call}: a hand-made condition, not a gate's skip`);
  }
  if (conditional.some((c) => /\.skip\b|\bskip\b/.test(c.argument)) && !/\.assertPresent\(\)/.test(text)) {
    problems.push('skips on a gate but never calls assertPresent(), so CI skips too');
  }
  for (const match of text.matchAll(/[\w$]+(?:\?)?\.skip\(/g)) problems.push(`${match[0]}: skips without a gate (use skipOrFail(ctx, what) or a gate's skip)`);
  for (const match of text.matchAll(/console\.warn\(\s*[`'"]SKIPPING[^\n]*/g)) problems.push(`${match[0]}: a hand-made skip warning (requireComponents warns)`);
  return problems;
}

/** What is wrong with how one test file gets its Chromium (empty when through the helper and its gate). */
function chromiumProblems(text: string): string[] {
  const problems: string[] = [];
  if (/\/usr\/bin\/chromium/.test(text)) problems.push('hard-codes /usr/bin/chromium (test/support/chromium.ts finds it: SVC_CHROMIUM or chromium on PATH)');
  if (/\bchromium\.launch\(|\bexecutablePath\b/.test(text)) problems.push('launches Chromium itself (use launchChromium() from test/support/chromium.ts)');
  if (/\blaunchChromium\(/.test(text) && !/\bchromiumGate\(/.test(text))
    problems.push('launches Chromium without a chromiumGate(suite), so a missing browser is neither skipped nor named');
  return problems;
}

/** Every .ts file under test/, relative to the repository root. */
function testFiles(dir = 'test'): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('tests skip only through require-components', () => {
  it('finds each shape a hand-made skip takes, and passes gated ones', () => {
    const gated = "const gate = requireComponents('x', []);\ndescribe.skipIf(gate.skip)('x', () => { beforeAll(() => gate.assertPresent()); });";
    expect(skipProblems(gated)).toEqual([]);
    expect(
      skipProblems("describe.each([{ skip: gate.skip }])('x', ({ skip }) => { beforeAll(() => gate.assertPresent()); it.skipIf(skip)('y', () => {}); });"),
    ).toEqual([]);
    expect(skipProblems("it('x', (ctx) => { if (!fs) skipOrFail(ctx, 'no tmpfs'); });")).toEqual([]);
    expect(skipProblems("describe.skipIf(!haveCaddy)('x', () => {});")).toHaveLength(1);
    expect(skipProblems("describe.skipIf(!(await probe()))('x', () => {});")).toHaveLength(1);
    expect(skipProblems("it.runIf(process.getuid?.() === 0)('x', () => {});")).toHaveLength(1);
    expect(skipProblems("describe.skipIf(gate.skip)('x', () => {});")).toEqual(['skips on a gate but never calls assertPresent(), so CI skips too']);
    expect(skipProblems("it.skip('x', () => {});")).toHaveLength(1);
    expect(skipProblems("describe.skip('x', () => {});")).toHaveLength(1);
    expect(skipProblems("it('x', (ctx) => { if (!podman) ctx.skip(); });")).toHaveLength(1);
    expect(skipProblems("if (!ok) console.warn('SKIPPING podman test: podman is not usable');")).toHaveLength(1);
  });

  it('finds Chromium found or launched by hand, and passes a gated launchChromium', () => {
    const gated =
      "const gate = chromiumGate('x');\ndescribe.skipIf(gate.skip)('x', () => { beforeAll(async () => { gate.assertPresent(); browser = await launchChromium(); }); });";
    expect(chromiumProblems(gated)).toEqual([]);
    expect(chromiumProblems("browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });")).toHaveLength(2);
    expect(chromiumProblems('browser = await chromium.launch({ executablePath: process.env.SVC_CHROMIUM });')).toHaveLength(1);
    expect(chromiumProblems('beforeAll(async () => { browser = await launchChromium(); });')).toHaveLength(1);
    expect(chromiumProblems("commandComponent('chromium', ['/usr/bin/chromium', '--version'])")).toHaveLength(1);
  });

  it('holds for every test file, with each allowed exception still present', () => {
    const files = testFiles().filter((path) => path !== self && path !== gateModule);
    const problems = files.flatMap((path) => {
      const text = readFileSync(join(root, path), 'utf8');
      const exceptions = allowed.filter((a) => a.file === path).map((a) => a.snippet);
      return skipProblems(text)
        .filter((problem) => !exceptions.some((snippet) => problem.startsWith(snippet)))
        .map((problem) => `${path}: ${problem}`);
    });
    expect(problems).toEqual([]);
    const browserProblems = files
      .filter((path) => path !== chromiumModule)
      .flatMap((path) => chromiumProblems(readFileSync(join(root, path), 'utf8')).map((problem) => `${path}: ${problem}`));
    expect(browserProblems).toEqual([]);
    const stale = allowed.filter((a) => !readFileSync(join(root, a.file), 'utf8').includes(a.snippet));
    expect(stale.map((a) => `${a.file}: ${a.snippet} is gone; remove it from the allow-list`)).toEqual([]);
  });
});
