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
  /** Human-readable target such as "<= 1.5x". */
  target?: string;
  pass?: boolean;
}

/** A benchmark module's default export. */
export type Benchmark = () => Promise<BenchResult[]>;
