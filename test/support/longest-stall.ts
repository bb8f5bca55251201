// How long the event loop stood still while `work` ran: an interval ticks, and the longest gap between
// ticks (or since the last one, at the end) is the stall.

export async function longestStall<T>(work: () => Promise<T>, tickMs = 5): Promise<{ value: T; stallMs: number; tookMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, tickMs);
  const began = performance.now();
  try {
    const value = await work();
    return { value, stallMs: Math.max(stallMs, performance.now() - last), tookMs: performance.now() - began };
  } finally {
    clearInterval(timer);
  }
}
