// Request records of apps the ingress process served, on their way to the control plane's
// observers (metrics, usage, canary samples). Sent in batches while a control plane is attached;
// kept while none is, up to a bound — beyond it the oldest are dropped and counted.
import type { RequestRecord } from '../request-record.js';

/** Records kept while no control plane is attached (about 200 bytes each). */
export const MAX_BUFFERED_RECORDS = 100_000;
const BATCH = 500;
const BATCH_DELAY_MS = 100;

export class RecordOutbox {
  readonly #limit: number;
  #records: RequestRecord[] = [];
  #head = 0;
  /** Dropped since the last batch that was sent. */
  #dropped = 0;
  /** Dropped in total (status). */
  droppedTotal = 0;
  #send: ((records: RequestRecord[], dropped: number) => boolean) | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(limit = MAX_BUFFERED_RECORDS) {
    this.#limit = limit;
  }

  get buffered(): number {
    return this.#records.length - this.#head;
  }

  /** Add a finished request's record (hot path: O(1) amortized). */
  readonly push = (record: RequestRecord): void => {
    if (this.buffered >= this.#limit) {
      this.#head++;
      this.#dropped++;
      this.droppedTotal++;
    }
    this.#records.push(record);
    if (this.#send === null) {
      if (this.#head > this.#limit) this.#compact();
      return;
    }
    if (this.buffered >= BATCH) this.flush();
    else if (this.#timer === null) {
      this.#timer = setTimeout(() => this.flush(), BATCH_DELAY_MS);
      this.#timer.unref();
    }
  };

  #compact(): void {
    this.#records = this.#records.slice(this.#head);
    this.#head = 0;
  }

  /** Send everything buffered now, in batches (nothing when no control plane is attached). */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const send = this.#send;
    if (send === null) return;
    const records = this.#records.slice(this.#head);
    this.#records = [];
    this.#head = 0;
    for (let at = 0; at < records.length || this.#dropped > 0; at += BATCH) {
      if (!send(records.slice(at, at + BATCH), this.#dropped)) {
        // The control plane is gone: keep the rest for the next one.
        this.#send = null;
        this.#records = records.slice(at).concat(this.#records);
        return;
      }
      this.#dropped = 0;
    }
  }

  /** Everything buffered, removed (an ingress handing over passes it to its successor). */
  take(): { records: RequestRecord[]; dropped: number } {
    const taken = { records: this.#records.slice(this.#head), dropped: this.#dropped };
    this.#records = [];
    this.#head = 0;
    this.#dropped = 0;
    return taken;
  }

  /** Records a predecessor handed over (and how many it dropped), sent like this process's own. */
  adopt(records: readonly RequestRecord[], dropped: number): void {
    this.#dropped += dropped;
    this.droppedTotal += dropped;
    for (const record of records) this.push(record);
    if (records.length === 0 && dropped > 0) this.flush();
  }

  /** A control plane attached (send what is buffered) or left (null: keep buffering). */
  connect(send: ((records: RequestRecord[], dropped: number) => boolean) | null): void {
    this.#send = send;
    if (send !== null) this.flush();
  }
}
