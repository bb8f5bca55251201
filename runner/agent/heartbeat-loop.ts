// The node heartbeat: liveness plus draining/capacity/labels and what the node runs, sent every third of the control plane's
// nodeLeaseMs (taken from each answer), so one lost heartbeat never marks the node offline.
import type { NodeProjectReportWire } from '../../src/nodes/contract.js';
import type { CoordinatorClient } from './create-coordinator-client.js';

export interface HeartbeatLoopOptions {
  client: Pick<CoordinatorClient, 'heartbeat'>;
  capacity: number;
  labels: Record<string, string>;
  /**
   * What the node runs, sent with every beat (the control plane routes and converges from it); null
   * or a failure leaves it out of that beat.
   */
  report?: () => Promise<{ provider: string; projects: NodeProjectReportWire[] } | null>;
  /** Interval used until the first answer and after failures (default 10 s). */
  fallbackIntervalMs?: number;
  onError?: (error: unknown) => void;
}

/** A running heartbeat loop. */
export interface HeartbeatLoop {
  /** Send one heartbeat now (the loop keeps its schedule); resolves with the server's nodeLeaseMs. */
  beat(): Promise<number>;
  /** Announce draining (sent at once, and on every later beat). */
  drain(): Promise<void>;
  /** Stop the timer. */
  stop(): void;
}

/** Start heartbeating; the first beat is sent at once and awaited (it proves the credential works). */
export async function startHeartbeatLoop(options: HeartbeatLoopOptions): Promise<HeartbeatLoop> {
  let draining = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let intervalMs = options.fallbackIntervalMs ?? 10_000;
  const beat = async (): Promise<number> => {
    const running = options.report ? await options.report().catch((error: unknown) => void options.onError?.(error)) : null;
    const answer = await options.client.heartbeat({
      draining,
      capacity: options.capacity,
      labels: options.labels,
      ...(running ? { provider: running.provider, projects: running.projects } : {}),
    });
    intervalMs = Math.max(100, Math.floor(answer.nodeLeaseMs / 3));
    return answer.nodeLeaseMs;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      beat()
        .catch((error: unknown) => options.onError?.(error))
        .finally(schedule);
    }, intervalMs);
  };
  await beat();
  schedule();
  return {
    beat,
    async drain() {
      draining = true;
      await beat().catch((error: unknown) => options.onError?.(error));
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
