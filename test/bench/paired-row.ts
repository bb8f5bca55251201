// A benchmark row from paired rounds (rounds.ts): the medians of each side, the median per-round ratio and
// its min–max, and optionally a target on that ratio.
import type { BenchResult } from './bench-types.js';
import { median, pairedRatios, type Paired } from './rounds.js';

/** A target on the median ratio, e.g. `{ text: '<= 1.2x', pass: (r) => r <= 1.2 }`. */
export interface RatioTarget {
  text: string;
  pass: (ratio: number) => boolean;
}

/** One row of `paired` (ratio = ours ÷ baseline per round). */
export function pairedRow(id: string, name: string, paired: Paired, unit: string, baselineName: string, target?: RatioTarget): BenchResult {
  const summary = pairedRatios(paired);
  const result: BenchResult = {
    id,
    name,
    value: median(paired.ours),
    unit,
    baseline: median(paired.baseline),
    baselineName,
    ratio: summary.median,
    range: { min: summary.min, max: summary.max, rounds: summary.rounds },
  };
  return target ? { ...result, target: target.text, pass: target.pass(summary.median) } : result;
}
