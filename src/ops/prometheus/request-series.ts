// Request counts and latency per project, kept as plain counters on the hot path and turned into
// Prometheus families only when scraped. Latencies use the ingress's fixed log-scale bins (the same
// ones the console's p50/p95 come from); a scrape folds every fourth bin into one `le` bucket, so
// the per-request cost is a map lookup, a log2 and a few increments, and nothing is allocated.
import { binIndex, binUpperBound, emptyHistogram, LATENCY_BINS } from '../../ingress/index.js';

/** Status classes in label order; index 0 is a client that left before any response. */
const CODE_LABELS = ['none', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** Fine bins folded into each exposed bucket: every fourth bin is a doubling (0.5 ms … 65.5 s). */
const FOLD_FROM = 4;
const FOLD_TO = 72;
const FOLD_STEP = 4;

/** Counts of one key (a project id, or whatever the caller resolves to one at scrape time). */
interface Tally {
  readonly codes: Float64Array;
  readonly histogram: Uint32Array;
  sumMs: number;
  bytes: number;
}

/** One sample line of a family (the shape prom-client's registry prints). */
export interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** A metric family the registry prints at scrape time (prom-client's custom-metric shape). */
export interface SampledFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: Sample[] }>;
}

/** The `le` bounds in seconds of the exposed buckets (without +Inf). Pure. */
export function foldedBounds(): number[] {
  const bounds: number[] = [];
  for (let i = FOLD_FROM; i <= FOLD_TO; i += FOLD_STEP) bounds.push(binUpperBound(i) / 1000);
  return bounds;
}

/** Cumulative counts at each folded bound plus the total (for +Inf). Pure. */
export function foldHistogram(histogram: Uint32Array): { cumulative: number[]; total: number } {
  const cumulative: number[] = [];
  let running = 0;
  let next = FOLD_FROM;
  for (let i = 0; i < LATENCY_BINS; i++) {
    running += histogram[i]!;
    if (i === next && next <= FOLD_TO) {
      cumulative.push(running);
      next += FOLD_STEP;
    }
  }
  return { cumulative, total: running };
}

function statusIndex(status: number): number {
  const c = Math.floor(status / 100);
  return c >= 1 && c <= 5 ? c : 0;
}

/** Per-key request tallies with their three families: `<prefix>_requests_total`, `_request_duration_seconds`, `_response_bytes_total`. */
export class RequestSeries {
  readonly #tallies = new Map<string, Tally>();
  readonly #prefix: string;
  readonly #what: string;

  /** `what` names the traffic in the help text ("app requests through the ingress"). */
  constructor(prefix: string, what: string) {
    this.#prefix = prefix;
    this.#what = what;
  }

  /** Whether a key has been counted before. */
  has(key: string): boolean {
    return this.#tallies.has(key);
  }

  /** Count one finished request. */
  record(key: string, status: number, latencyMs: number, bytes: number): void {
    let t = this.#tallies.get(key);
    if (t === undefined) {
      t = { codes: new Float64Array(CODE_LABELS.length), histogram: emptyHistogram(), sumMs: 0, bytes: 0 };
      this.#tallies.set(key, t);
    }
    t.codes[statusIndex(status)]!++;
    t.histogram[binIndex(latencyMs)]!++;
    t.sumMs += latencyMs;
    t.bytes += bytes;
  }

  /**
   * The families, merging keys that `projectOf` maps to the same project (null: the empty project
   * label, for requests no project can be named for).
   */
  families(projectOf: (key: string) => string | null = (key) => key): SampledFamily[] {
    const merged = (): Map<string, Tally> => {
      const byProject = new Map<string, Tally>();
      for (const [key, t] of this.#tallies) {
        const project = projectOf(key) ?? '';
        const into = byProject.get(project);
        if (into === undefined) {
          byProject.set(project, { codes: t.codes.slice(), histogram: t.histogram.slice(), sumMs: t.sumMs, bytes: t.bytes });
          continue;
        }
        for (let i = 0; i < CODE_LABELS.length; i++) into.codes[i]! += t.codes[i]!;
        for (let i = 0; i < LATENCY_BINS; i++) into.histogram[i]! += t.histogram[i]!;
        into.sumMs += t.sumMs;
        into.bytes += t.bytes;
      }
      return byProject;
    };
    const bounds = foldedBounds();
    return [
      family(`${this.#prefix}_requests_total`, `Finished ${this.#what} by project and status class (none: the client left first).`, 'counter', () => {
        const values: Sample[] = [];
        for (const [project, t] of merged())
          CODE_LABELS.forEach((code, i) => {
            if (t.codes[i]! > 0) values.push({ labels: { project, code }, value: t.codes[i]! });
          });
        return values;
      }),
      family(`${this.#prefix}_request_duration_seconds`, `Latency of ${this.#what} from arrival to the end of the response body.`, 'histogram', () => {
        const name = `${this.#prefix}_request_duration_seconds`;
        const values: Sample[] = [];
        for (const [project, t] of merged()) {
          const { cumulative, total } = foldHistogram(t.histogram);
          bounds.forEach((le, i) => values.push({ metricName: `${name}_bucket`, labels: { project, le }, value: cumulative[i]! }));
          values.push({ metricName: `${name}_bucket`, labels: { project, le: '+Inf' }, value: total });
          values.push({ metricName: `${name}_sum`, labels: { project }, value: t.sumMs / 1000 });
          values.push({ metricName: `${name}_count`, labels: { project }, value: total });
        }
        return values;
      }),
      family(`${this.#prefix}_response_bytes_total`, `Response body bytes of ${this.#what} that reached the client.`, 'counter', () =>
        [...merged()].map(([project, t]) => ({ labels: { project }, value: t.bytes })),
      ),
    ];
  }
}

/** A family whose samples are computed when the registry prints it. */
export function family(name: string, help: string, type: SampledFamily['type'], sample: () => Sample[] | Promise<Sample[]>): SampledFamily {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: await sample() }),
  };
}
