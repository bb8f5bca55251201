// The samples of the current canary stage: completed candidate responses, newest 10,000 kept. A
// response counts only if it started in this stage (its route generation), was routed to
// the candidate, and the client did not cancel it.
import type { CanarySample } from './stage-policy.js';

/** Samples retained per stage (bounds the memory of a long stage). */
export const SAMPLES_PER_STAGE = 10_000;

/** The part of an ingress request record a sample needs. */
export interface CompletedRequest {
  readonly releaseId: string | null;
  readonly generation: number;
  readonly status: number;
  readonly latencyMs: number;
  readonly aborted: boolean;
  readonly streamError: boolean;
}

/** Whether a completed response is an error for the canary: 5xx, no response at all, or a broken stream. Pure. */
export function isErrorResponse(record: CompletedRequest): boolean {
  return record.streamError || record.status === 0 || record.status >= 500;
}

/** A bounded ring of one stage's samples; `begin` starts a new stage and forgets the old one. */
export class SampleWindow {
  readonly #capacity: number;
  #ring: CanarySample[] = [];
  #next = 0;
  #releaseId: string | null = null;
  #generation = Number.POSITIVE_INFINITY;
  /** Samples accepted in this stage, including ones the ring already overwrote. */
  accepted = 0;
  /** Candidate completions ignored because the client cancelled them. */
  cancelled = 0;

  constructor(capacity = SAMPLES_PER_STAGE) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.#capacity = capacity;
  }

  /** Start a stage: only requests of `releaseId` dispatched at route generation `generation` or later count. */
  begin(releaseId: string, generation: number): void {
    this.#ring = [];
    this.#next = 0;
    this.#releaseId = releaseId;
    this.#generation = generation;
    this.accepted = 0;
    this.cancelled = 0;
  }

  /** Offer a finished request (the ingress observer); returns whether it became a sample. O(1). */
  offer(record: CompletedRequest): boolean {
    if (record.releaseId === null || record.releaseId !== this.#releaseId) return false;
    if (record.generation < this.#generation) return false;
    if (record.aborted) {
      this.cancelled++;
      return false;
    }
    const sample: CanarySample = { latencyMs: record.latencyMs, error: isErrorResponse(record) };
    if (this.#ring.length < this.#capacity) this.#ring.push(sample);
    else this.#ring[this.#next] = sample;
    this.#next = (this.#next + 1) % this.#capacity;
    this.accepted++;
    return true;
  }

  /** The retained samples (order is not meaningful to the policy). */
  samples(): readonly CanarySample[] {
    return this.#ring;
  }
}
