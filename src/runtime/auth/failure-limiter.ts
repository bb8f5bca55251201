// Slows password guessing: after too many failed sign-ins for one email within a window, further
// attempts are refused until the window passes. In memory, bounded, per process.

/** Counts failures per key inside a sliding window. */
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 15 * 60 * 1000,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** Whether the key has used up its failures in the current window. */
  isBlocked(key: string): boolean {
    return this.recent(key).length >= this.maxFailures;
  }

  recordFailure(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.failures.delete(key);
    this.failures.set(key, list);
    if (this.failures.size > this.maxKeys) this.failures.delete(this.failures.keys().next().value as string);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(key) ?? []).filter((time) => time > since);
  }
}
