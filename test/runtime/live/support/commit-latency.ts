// Commit latency of two runtimes measured in alternation (same run, same ambient load): one without
// live subscribers, one with many. Only the committing call is timed; fan-out runs between commits.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeEngine } from '../../../../src/runtime/index.js';

/** Alternate `pairs` commits on `quiet` and `busy`; returns each side's latencies in ms. */
export async function alternatingCommitLatency(quiet: RuntimeEngine, busy: RuntimeEngine, pairs: number): Promise<{ quiet: number[]; busy: number[] }> {
  const out = { quiet: [] as number[], busy: [] as number[] };
  for (let i = 0; i < pairs; i++) {
    for (const [name, engine] of i % 2 === 0
      ? ([
          ['quiet', quiet],
          ['busy', busy],
        ] as const)
      : ([
          ['busy', busy],
          ['quiet', quiet],
        ] as const)) {
      const t0 = performance.now();
      engine.runMutation('tasks/add', { text: `c${i}`, list: 'lat' }, null);
      out[name].push(performance.now() - t0);
      await sleep(2); // let the fan-out (and the subscribers reading it) finish before the next timed commit
    }
  }
  return out;
}
