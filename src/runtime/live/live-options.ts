import { z } from 'zod';

/** Live hub options; every bound is configurable (no fixed connection cap). */
const liveOptionsSchema = z.object({
  /** Interval of `: heartbeat` comments. */
  heartbeatMs: z.number().int().min(10).default(15_000),
  /** Largest encoded snapshot event; larger → `event: error` SVC_LIVE_PAYLOAD_TOO_LARGE and the stream closes. */
  maxPayloadBytes: z
    .number()
    .int()
    .min(256)
    .default(1024 * 1024),
  /** Bytes a connection may have queued and unsent; beyond → slow consumer, disconnected. */
  maxQueueBytes: z
    .number()
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  /** Concurrent live connections per hub; beyond → 503 SVC_LIVE_TOO_MANY_CONNECTIONS. */
  maxConnections: z.number().int().min(1).default(50_000),
  /** Largest accepted `args` query parameter (UTF-8 bytes of the JSON). */
  maxArgsBytes: z
    .number()
    .int()
    .min(2)
    .default(16 * 1024),
  /** Milliseconds a fan-out may hold the event loop before yielding, so requests (mutations) interleave. */
  fanoutSliceMs: z.number().min(0.1).default(4),
  /** Reconnection hint sent as `retry:`. */
  retryMs: z.number().int().min(0).default(1_000),
});

/** Options as written by users (all optional). */
export type LiveOptionsInput = z.input<typeof liveOptionsSchema>;
/** Options with defaults applied. */
export type LiveOptions = z.output<typeof liveOptionsSchema>;

/** Validate options and apply defaults. */
export function resolveLiveOptions(input: LiveOptionsInput = {}): LiveOptions {
  return liveOptionsSchema.parse(input);
}
