import type { LiveState, LiveSubscription } from '../../../../src/runtime/client/index.js';

/** Resolve when the subscription's state satisfies `ok` (rejects after `ms`). */
export function until<T>(sub: LiveSubscription<T>, ok: (s: LiveState<T>) => boolean, ms = 10_000): Promise<LiveState<T>> {
  return new Promise((resolve, reject) => {
    if (ok(sub.getState())) return resolve(sub.getState());
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timeout; state ${JSON.stringify(sub.getState()).slice(0, 500)}`));
    }, ms);
    const off = sub.subscribe((s) => {
      if (ok(s)) {
        clearTimeout(timer);
        off();
        resolve(s);
      }
    });
  });
}
