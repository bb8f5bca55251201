/** One row of the benchmark table: a measurement, its same-run baseline and their ratio. */
export interface BenchResult {
  /** Benchmark id, e.g. "B6" (test/bench/b6-*.bench.ts). */
  id: string;
  name: string;
  value: number;
  unit: string;
  baseline: number;
  baselineName: string;
  /** value / baseline for times (lower is better) or baseline / value — say which in `name`. */
  ratio: number;
  /** The spread of the per-round ratios and how many interleaved rounds there were (see rounds.ts). */
  range?: { min: number; max: number; rounds: number };
  /** Human-readable target such as "<= 1.5x". */
  target?: string;
  pass?: boolean;
}

/** A benchmark module's default export. */
export type Benchmark = () => Promise<BenchResult[]>;
