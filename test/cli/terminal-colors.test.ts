// When the CLI paints its human output (picocolors' rule over the environment it was given), and
// that --json output and piped output stay plain.
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import { Output } from '../../cli/output.js';
import { colorEnabled } from '../../cli/terminal-colors.js';
import { textSink } from './text-sink.js';

const ESC = '\x1b[';

describe('terminal colours', () => {
  it('follows NO_COLOR, FORCE_COLOR, CI, TERM=dumb and the terminal, and never paints --json', () => {
    const on = (env: Record<string, string>, isTTY: boolean, json = false) => colorEnabled({ env, isTTY, json });
    expect(on({}, true)).toBe(true);
    expect(on({}, false)).toBe(false);
    expect(on({ TERM: 'dumb' }, true)).toBe(false);
    expect(on({ NO_COLOR: '1' }, true)).toBe(false);
    expect(on({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    // An empty NO_COLOR is "not set" (no-color.org), as picocolors reads it.
    expect(on({ NO_COLOR: '' }, true)).toBe(true);
    expect(on({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(on({ CI: 'true' }, false)).toBe(true);
    expect(on({ FORCE_COLOR: '1' }, true, true)).toBe(false);
  });

  it('paints errors on a terminal, and writes them plain when piped or with --json', () => {
    const render = (isTTY: boolean, json: boolean, env: Record<string, string> = {}) => {
      const [stdout, stderr] = [textSink(isTTY), textSink(isTTY)];
      const out = new Output({ stdout, stderr, json, clock: manualClock(), env });
      out.error(new SvcError('SVC_USAGE', 'bad flag'));
      return stdout.text + stderr.text;
    };
    expect(render(true, false)).toContain(`${ESC}31merror${ESC}39m SVC_USAGE: bad flag`);
    expect(render(false, false)).toMatch(/^error SVC_USAGE: bad flag\n/);
    expect(render(false, false)).not.toContain(ESC);
    expect(render(true, true, { FORCE_COLOR: '1' })).not.toContain(ESC);
    expect(JSON.parse(render(true, true, { FORCE_COLOR: '1' }))).toEqual({ error: { code: 'SVC_USAGE', message: 'bad flag' } });
  });
});
