// The benchmark harness's own logic (no benchmark runs here): interleaving, ratios, arguments, table.
import { describe, expect, it } from 'vitest';
import { formatMarkdown, formatTable, parseArgs } from '../bench/run.js';
import { interleave, median, pairedRatios, percentile, roundsFrom } from '../bench/rounds.js';

describe('benchmark rounds', () => {
  it('alternates which side goes first, round after round', async () => {
    const order: string[] = [];
    const paired = await interleave(
      4,
      async (round) => (order.push(`ours${round}`), 10 + round),
      async (round) => (order.push(`base${round}`), 5),
    );
    expect(order).toEqual(['ours0', 'base0', 'base1', 'ours1', 'ours2', 'base2', 'base3', 'ours3']);
    expect(paired).toEqual({ ours: [10, 11, 12, 13], baseline: [5, 5, 5, 5] });
  });

  it('reports the median per-round ratio with its range, not a ratio of medians', () => {
    const summary = pairedRatios({ ours: [2, 30, 4, 5, 100], baseline: [1, 10, 2, 1, 10] });
    expect(summary).toEqual({ median: 3, min: 2, max: 10, rounds: 5 });
  });

  it('never runs fewer than five rounds', () => {
    expect(roundsFrom('2')).toBe(5);
    expect(roundsFrom(undefined, 9)).toBe(9);
    expect(roundsFrom('7')).toBe(7);
    expect(roundsFrom('many')).toBe(5);
  });

  it('computes medians and percentiles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(
      percentile(
        [...Array(100).keys()].map((n) => n + 1),
        99,
      ),
    ).toBe(99);
    expect(() => median([])).toThrow();
  });
});

describe('npm run bench arguments and table', () => {
  it('takes id filters and --json <file>', () => {
    expect(parseArgs(['b4', '--json', 'out.json', 'b5'])).toEqual({ filters: ['b4', 'b5'], json: 'out.json', markdown: false });
    expect(parseArgs(['--json=x.json'])).toEqual({ filters: [], json: 'x.json', markdown: false });
    expect(() => parseArgs(['--json'])).toThrow(/--json needs a file name/);
    expect(parseArgs(['--markdown', 'b6'])).toEqual({ filters: ['b6'], markdown: true });
  });

  it("shows each row's range and rounds", () => {
    const table = formatTable([
      {
        id: 'B9',
        name: 'thing',
        value: 2,
        unit: 'ms',
        baseline: 1,
        baselineName: 'bare',
        ratio: 2,
        range: { min: 1.5, max: 2.5, rounds: 5 },
        target: '<= 3x',
        pass: true,
      },
    ]);
    expect(table).toContain('1.50–2.50 (5)');
    expect(table).toMatch(/B9\s+thing\s+2\.00 ms/);
    const markdown = formatMarkdown([
      { id: 'B9', name: 'a | b', value: 2, unit: 'ms', baseline: 1, baselineName: 'bare', ratio: 2, range: { min: 1.5, max: 2.5, rounds: 5 } },
    ]);
    expect(markdown.split('\n')[2]).toBe('| B9 | a \\| b | 2.00 ms | 1.00 ms (bare) | 2.00× | 1.50–2.50 (5) |  |  |');
  });
});
