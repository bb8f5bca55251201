/**
 * What the proxy reports once per request, at body termination (completion, client cancellation
 * or stream error). Observers: the metrics recorder (usage metering reads its series) and canary
 * samples. Observers run on the hot path: keep them O(1) and never throw.
 */
export interface RequestRecord {
  readonly projectId: string;
  /** Release that served it; null when the project had no active release (503). */
  readonly releaseId: string | null;
  /** Route generation when dispatched (a canary stage ignores completions from earlier stages). */
  readonly generation: number;
  readonly method: string;
  /** Status sent to the client; 0 when the client left before a response started. */
  readonly status: number;
  /** Milliseconds from arrival to body termination. */
  readonly latencyMs: number;
  /** Response body bytes whose write to the client socket completed (never a declared length; HEAD = 0). */
  readonly bytes: number;
  /** The client went away before the body completed. */
  readonly aborted: boolean;
  /** The upstream failed: 502 before headers, or a broken body stream after them. */
  readonly streamError: boolean;
  /**
   * svc answered by itself and the app never saw the request: 503 with no active release, or a held
   * request whose hold ran out or was full. Counted apart from the app's own errors.
   */
  readonly platform?: boolean;
  /**
   * When it ended (epoch ms). Set by the ingress process, whose records may reach the control plane
   * long after (it was down); in-process records leave it out and mean "now".
   */
  readonly endedAt?: number;
}

/** A consumer of request records. */
export type RequestObserver = (record: RequestRecord) => void;
