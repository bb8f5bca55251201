// The health probe schedule: 100 ms doubling to 1 s, never past the deadline. Pure.
import { describe, expect, it } from 'vitest';
import { healthCheckDelay } from '../../runner/health-backoff.js';
import { checkHealth } from '../../runner/health-check.js';
import { manualClock } from '../../src/core/clock.js';

describe('healthCheckDelay', () => {
  it.each([
    // attempt, remaining ms, delay
    [1, 30_000, 100],
    [2, 30_000, 200],
    [3, 30_000, 400],
    [4, 30_000, 800],
    [5, 30_000, 1000],
    [6, 30_000, 1000],
    [50, 30_000, 1000],
    [1_000_000, 30_000, 1000],
    [3, 150, 150], // the last pause ends at the deadline, not after it
    [1, 0, 0],
    [1, -5, 0],
    [0, 30_000, 100], // defensive: before any attempt
  ])('after attempt %i with %i ms left: %i ms', (attempt, remaining, delay) => {
    expect(healthCheckDelay(attempt, remaining)).toBe(delay);
  });
});

describe('checkHealth with the default schedule', () => {
  it('probes at 0, 100, 300, 700, 1500, 2500 … ms and still gives up exactly at the timeout', async () => {
    const clock = manualClock(0);
    const at: number[] = [];
    const result = await checkHealth({
      host: '127.0.0.1',
      port: 1,
      timeoutMs: 5_000,
      clock,
      sleep: async (ms) => clock.advance(ms),
      fetch: async () => {
        at.push(clock.now());
        throw new Error('connect ECONNREFUSED');
      },
    });
    expect(at).toEqual([0, 100, 300, 700, 1500, 2500, 3500, 4500]);
    expect(result).toMatchObject({ ok: false, reason: 'timeout', attempts: 8, elapsedMs: 5_000 });
  });

  it('notices an app that becomes healthy between probes at the next one', async () => {
    const clock = manualClock(0);
    const result = await checkHealth({
      host: '127.0.0.1',
      port: 1,
      timeoutMs: 5_000,
      clock,
      sleep: async (ms) => clock.advance(ms),
      fetch: async () => (clock.now() >= 250 ? new Response(null, { status: 200 }) : Promise.reject(new Error('refused'))),
    });
    expect(result).toEqual({ ok: true, status: 200, attempts: 3, elapsedMs: 300 });
  });
});

describe('checkHealth woken by the app listening', () => {
  it('probes at once when the app starts listening during a pause, then keeps its schedule', async () => {
    const clock = manualClock(0);
    const at: number[] = [];
    let listeningNow: () => void = () => {};
    const result = await checkHealth({
      host: '127.0.0.1',
      port: 1,
      timeoutMs: 5_000,
      clock,
      // A pause that never ends by itself: only the wake can end the first one.
      sleep: (ms) => (at.length === 1 ? new Promise<void>(() => {}) : Promise.resolve(clock.advance(ms))),
      listening: () => new Promise<void>((resolve) => (listeningNow = resolve)),
      fetch: async () => {
        at.push(clock.now());
        if (at.length === 1) {
          clock.advance(30);
          queueMicrotask(() => listeningNow());
        }
        if (at.length < 3) throw new Error('connect ECONNREFUSED');
        return new Response(null, { status: 200 });
      },
    });
    // Second probe right after the wake (no pause counted), the third after the normal 200 ms pause.
    expect(at).toEqual([0, 30, 230]);
    expect(result).toEqual({ ok: true, status: 200, attempts: 3, elapsedMs: 230 });
  });

  it('ignores a runner that cannot tell (its look fails)', async () => {
    const clock = manualClock(0);
    const result = await checkHealth({
      host: '127.0.0.1',
      port: 1,
      timeoutMs: 5_000,
      clock,
      sleep: async (ms) => clock.advance(ms),
      listening: () => Promise.reject(new Error('no /proc')),
      fetch: async () => (clock.now() >= 250 ? new Response(null, { status: 200 }) : Promise.reject(new Error('refused'))),
    });
    expect(result).toEqual({ ok: true, status: 200, attempts: 3, elapsedMs: 300 });
  });
});
