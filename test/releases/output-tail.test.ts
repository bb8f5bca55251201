// The output tail kept with a failed release: newest lines within the line and byte bounds, terminal
// escapes and control characters removed.
import { describe, expect, it } from 'vitest';
import { OUTPUT_TAIL_BYTES, OUTPUT_TAIL_LINES, outputTail, plainLine } from '../../src/releases/output-tail.js';

describe('outputTail', () => {
  it('keeps the newest lines, oldest first, within the line bound', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    const tail = outputTail(lines);
    expect(tail).toHaveLength(OUTPUT_TAIL_LINES);
    expect(tail[0]).toBe('line 30');
    expect(tail.at(-1)).toBe('line 49');
  });

  it('drops older lines to stay within the byte bound', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `${i}:${'x'.repeat(1000)}`);
    const tail = outputTail(lines);
    expect(tail.map((l) => l[0])).toEqual(['6', '7', '8', '9']);
    expect(tail.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
  });

  it('keeps the end of one line longer than the byte bound, without splitting characters', () => {
    const [only] = outputTail([`start ${'é'.repeat(5000)} Error: boom`]);
    expect(only).toMatch(/^….*Error: boom$/);
    expect(Buffer.byteLength(only!)).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(only).not.toContain('\uFFFD');
  });

  it('removes colours, cursor moves, titles and control characters but keeps tabs', () => {
    expect(plainLine('\u001b[31mError\u001b[0m:\tboom\u0007\r')).toBe('Error:\tboom');
    expect(plainLine('\u001b]0;title\u0007text\u001b[2K\u0000')).toBe('text');
    expect(outputTail(['\u001b[1mfirst\u001b[22m', 'second  '])).toEqual(['first', 'second']);
  });

  it('is empty without output', () => {
    expect(outputTail([])).toEqual([]);
  });
});
