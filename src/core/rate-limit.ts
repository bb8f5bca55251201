import type { Clock } from './clock.js';

/** Counts failures per key in a sliding window; used for guess limits (user codes, logins). */
export interface AttemptLimiter {
  /** Whether `key` is currently blocked, and for how long. */
  check(key: string): { blocked: boolean; retryAfterMs: number };
  /** Record one failed attempt for `key`. */
  fail(key: string): void;
}

/** In-memory sliding-window limiter: at most `max` failures per `windowMs` per key. */
export function createAttemptLimiter(options: { max: number; windowMs: number; clock: Clock; maxKeys?: number }): AttemptLimiter {
  const failures = new Map<string, number[]>();
  const maxKeys = options.maxKeys ?? 10_000;
  const recent = (key: string): number[] => {
    const cutoff = options.clock.now() - options.windowMs;
    const list = (failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  return {
    check(key) {
      const list = recent(key);
      if (list.length < options.max) return { blocked: false, retryAfterMs: 0 };
      return { blocked: true, retryAfterMs: Math.max(0, list[0]! + options.windowMs - options.clock.now()) };
    },
    fail(key) {
      const list = recent(key);
      list.push(options.clock.now());
      failures.set(key, list);
      // Bound memory: forget the oldest keys first.
      while (failures.size > maxKeys) failures.delete(failures.keys().next().value!);
    },
  };
}
