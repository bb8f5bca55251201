import { describe, expect, it } from 'vitest';
import { defaultBackoff, nextRestart } from '../../runner/restart-backoff.js';

describe('nextRestart', () => {
  it('grows exponentially within a crash streak and is capped', () => {
    let streak = 0;
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const next = nextRestart(defaultBackoff, streak, 100);
      delays.push(next.delayMs);
      streak = next.streak;
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    expect(streak).toBe(10);
  });

  it('starts a fresh streak after stable uptime', () => {
    expect(nextRestart(defaultBackoff, 7, 60_000)).toEqual({ delayMs: 500, streak: 1 });
    expect(nextRestart(defaultBackoff, 7, 59_999)).toEqual({ delayMs: 30_000, streak: 8 });
  });

  it('never overflows for very long streaks', () => {
    expect(nextRestart(defaultBackoff, 10_000, 0).delayMs).toBe(30_000);
  });
});
