// The one retry policy, without a clock: doubling from the base, the cap, the jitter share, and both
// forms of Retry-After (delta-seconds and HTTP-date) with their own cap.
import { describe, expect, it } from 'vitest';
import { backoffMs, parseRetryAfter, retryDelayMs } from '../../src/core/retry-policy.js';
import { retryLoop } from '../../src/core/retry-loop.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);

describe('backoffMs', () => {
  it('doubles from the base per failure and stops at the cap', () => {
    const exact = { baseMs: 1000, capMs: 8000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 60, 5000].map((n) => backoffMs(exact, n, 0.3))).toEqual([1000, 2000, 4000, 8000, 8000, 8000, 8000]);
    expect(backoffMs(exact, 0, 0)).toBe(1000); // no failure yet counts as the first
  });
  it('takes the jitter share off the delay: random 1 gives the full delay, 0 the least', () => {
    const half = { baseMs: 100, capMs: 1000 };
    expect(backoffMs(half, 1, 1)).toBe(100);
    expect(backoffMs(half, 1, 0)).toBe(50);
    expect(backoffMs(half, 4, 0.5)).toBe(600);
    const full = { baseMs: 100, capMs: 1000, jitter: 1 };
    expect(backoffMs(full, 2, 0)).toBe(0);
    expect(backoffMs(full, 2, 0.25)).toBe(50);
  });
  it('keeps out-of-range inputs inside the policy', () => {
    expect(backoffMs({ baseMs: 100, capMs: 1000, jitter: 7 }, 1, -3)).toBe(0);
    expect(backoffMs({ baseMs: 100, capMs: 1000 }, 1, Number.NaN)).toBe(100);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP-dates; a past date is 0; anything else is absent', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Tue, 01 Jan 2030 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', NOW)).toBe(0);
    for (const bad of [undefined, null, '', '-5', '1.5', 'soon', '2030-01-01T12:00:30Z', 'Tue, 99 Foo 2030 GMT'])
      expect(parseRetryAfter(bad, NOW)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  const policy = { baseMs: 1000, capMs: 60_000, jitter: 0, retryAfterCapMs: 120_000 };
  it('waits what the server asks when that is longer than the backoff, up to the Retry-After cap', () => {
    expect(retryDelayMs(policy, { attempt: 1, random: 1, retryAfter: '7', now: NOW })).toBe(7000);
    expect(retryDelayMs(policy, { attempt: 4, random: 1, retryAfter: '1', now: NOW })).toBe(8000);
    expect(retryDelayMs(policy, { attempt: 1, random: 1, retryAfter: '9999', now: NOW })).toBe(120_000);
    expect(retryDelayMs(policy, { attempt: 1, random: 1, retryAfter: 'Tue, 01 Jan 2030 12:01:00 GMT', now: NOW })).toBe(60_000);
    expect(retryDelayMs(policy, { attempt: 1, random: 1, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT', now: NOW })).toBe(1000);
  });
  it('caps Retry-After at the backoff cap when the policy names no other', () => {
    expect(retryDelayMs({ baseMs: 250, capMs: 10_000 }, { attempt: 1, random: 0, retryAfter: '3600', now: NOW })).toBe(10_000);
  });
});

describe('retryLoop', () => {
  it('waits the policy delays between attempts, passes Retry-After on, and throws the last error', async () => {
    const waits: number[] = [];
    const errors = ['one', 'two', 'three'].map((m) => new Error(m));
    await expect(
      retryLoop(async (n) => ({ kind: 'retry', error: errors[n - 1]!, retryAfter: n === 2 ? '5' : null }), {
        policy: { baseMs: 100, capMs: 10_000, jitter: 0 },
        maxAttempts: 3,
        sleep: async (ms) => void waits.push(ms),
        now: () => NOW,
      }),
    ).rejects.toBe(errors[2]);
    expect(waits).toEqual([100, 5000]);
  });
  it('returns the first done value and stops at a thrown (final) error', async () => {
    let calls = 0;
    const value = await retryLoop(async (n) => (calls++, n < 2 ? { kind: 'retry', error: new Error('again') } : { kind: 'done', value: n }), {
      policy: { baseMs: 1, capMs: 1 },
      maxAttempts: 5,
      sleep: async () => undefined,
    });
    expect([value, calls]).toEqual([2, 2]);
    await expect(
      retryLoop(
        async () => {
          throw new Error('final');
        },
        { policy: { baseMs: 1, capMs: 1 }, maxAttempts: 5 },
      ),
    ).rejects.toThrow('final');
  });
});
