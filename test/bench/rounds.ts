// Interleaved rounds: ours and its baseline run in alternating order, round after round, so a drift in
// host load hits both alike; a row reports the median of the per-round ratios with their min–max.

/** At least this many rounds per row, so one disturbed round cannot decide a ratio. */
export const MIN_ROUNDS = 5;

/** The number of rounds from an environment override, never fewer than MIN_ROUNDS. */
export function roundsFrom(value: string | undefined, fallback = MIN_ROUNDS): number {
  const n = Number(value ?? fallback);
  return Number.isFinite(n) ? Math.max(MIN_ROUNDS, Math.floor(n)) : fallback;
}

export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Paired {
  ours: number[];
  baseline: number[];
}

/** Run `rounds` pairs, alternating which side goes first; each side returns one measurement per call. */
export async function interleave(rounds: number, ours: (round: number) => Promise<number>, baseline: (round: number) => Promise<number>): Promise<Paired> {
  const result: Paired = { ours: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    const oursFirst = round % 2 === 0;
    for (const side of oursFirst ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const)) {
      result[side].push(await (side === 'ours' ? ours(round) : baseline(round)));
    }
  }
  return result;
}

export interface RatioSummary {
  median: number;
  min: number;
  max: number;
  rounds: number;
}

/** Median and range of the per-round ratios ours ÷ baseline (a time: lower is better; a rate: higher is better). */
export function pairedRatios(paired: Paired): RatioSummary {
  const ratios = paired.ours.map((v, i) => v / paired.baseline[i]!);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), rounds: ratios.length };
}
