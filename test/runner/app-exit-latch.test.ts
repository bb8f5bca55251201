import { describe, expect, it } from 'vitest';
import { AppExitLatch } from '../../runner/app-exit-latch.js';

const first = { code: 0, signal: null, at: 1 };
const second = { code: 1, signal: null, at: 2 };

describe('AppExitLatch', () => {
  it('records the first exit only and tells each listener once', async () => {
    const latch = new AppExitLatch();
    const seen: number[] = [];
    latch.onExit((exit) => seen.push(exit.at));
    const waited = latch.wait();
    expect(latch.settle(first)).toBe(true);
    expect(latch.settle(second)).toBe(false);
    expect(latch.exit).toEqual(first);
    expect(seen).toEqual([1]);
    expect(await waited).toEqual(first);
  });

  it('calls a late listener at once, and not an unsubscribed or cleared one', () => {
    const latch = new AppExitLatch();
    const seen: string[] = [];
    const off = latch.onExit(() => seen.push('unsubscribed'));
    off();
    latch.onExit(() => seen.push('cleared'));
    latch.clear();
    latch.settle(first);
    latch.onExit(() => seen.push('late'));
    expect(seen).toEqual(['late']);
  });
});
