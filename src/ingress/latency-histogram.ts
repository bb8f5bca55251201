// Fixed log-scale latency bins shared by the recorder, the store and queries, so histograms of
// any buckets can be added and p50/p95 computed for any window. Pure.

/** Upper bound (ms) of the first bin. */
const FIRST_BOUND_MS = 0.25;
/** Bins per doubling: 4 → each bin is ~19 % wider than the previous one. */
const PER_DOUBLING = 4;
/** Bins up to 0.25 ms · 2^(75/4) ≈ 115 s, plus one overflow bin. */
export const LATENCY_BINS = 77;

/** Upper bound in ms of bin i (Infinity for the overflow bin). */
export function binUpperBound(i: number): number {
  return i >= LATENCY_BINS - 1 ? Infinity : FIRST_BOUND_MS * 2 ** (i / PER_DOUBLING);
}

/** The bin a latency falls in. */
export function binIndex(ms: number): number {
  if (!(ms > FIRST_BOUND_MS)) return 0;
  const i = Math.ceil(PER_DOUBLING * Math.log2(ms / FIRST_BOUND_MS) - 1e-9);
  return i >= LATENCY_BINS - 1 ? LATENCY_BINS - 1 : i;
}

/** An empty histogram. */
export function emptyHistogram(): Uint32Array {
  return new Uint32Array(LATENCY_BINS);
}

/** Add `source` into `target` in place. */
export function addHistogram(target: Uint32Array, source: Uint32Array): void {
  for (let i = 0; i < LATENCY_BINS; i++) target[i]! += source[i] ?? 0;
}

/**
 * The q-quantile (0 < q ≤ 1) in ms, interpolated geometrically inside its bin; null when empty.
 * The overflow bin reports its lower bound.
 */
export function histogramQuantile(histogram: Uint32Array, q: number): number | null {
  let total = 0;
  for (let i = 0; i < LATENCY_BINS; i++) total += histogram[i]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < LATENCY_BINS; i++) {
    const count = histogram[i]!;
    if (count === 0) continue;
    if (seen + count >= rank) {
      const upper = binUpperBound(i);
      const lower = i === 0 ? 0 : binUpperBound(i - 1);
      if (upper === Infinity) return round(lower);
      const fraction = (rank - seen) / count;
      const value = i === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
      return round(value);
    }
    seen += count;
  }
  return null;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** Little-endian bytes of a histogram (the SQLite BLOB format). */
export function encodeHistogram(histogram: Uint32Array): Buffer {
  const buffer = Buffer.alloc(LATENCY_BINS * 4);
  for (let i = 0; i < LATENCY_BINS; i++) buffer.writeUInt32LE(histogram[i]!, i * 4);
  return buffer;
}

/** Histogram from its BLOB; shorter blobs (fewer bins) are padded with zeros. */
export function decodeHistogram(bytes: Uint8Array | null | undefined): Uint32Array {
  const histogram = emptyHistogram();
  if (!bytes) return histogram;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Math.min(LATENCY_BINS, Math.floor(buffer.length / 4));
  for (let i = 0; i < n; i++) histogram[i] = buffer.readUInt32LE(i * 4);
  return histogram;
}
