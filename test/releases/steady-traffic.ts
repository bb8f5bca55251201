// Steady traffic to a project's app through the ingress by its host: clients that keep asking until
// stopped, counting every answer that is not a 200 from the app as a failure, and the longest wait.
import { Agent } from 'undici';

export interface TrafficReport {
  ok: number;
  failures: string[];
  releases: Set<string>;
  /** The slowest answer in ms (a held request counts as a success that took this long). */
  longestMs: number;
  /** Each distinct failure with its count and when it was first and last seen (ms after traffic began). */
  failureSpans(): string[];
}

export function steadyTraffic(origin: string, host: string, clients = 4): { stop(): Promise<TrafficReport> } {
  const agent = new Agent({ connections: clients });
  const failures: string[] = [];
  const failedAt: number[] = [];
  const startedAt = performance.now();
  const releases = new Set<string>();
  let ok = 0;
  let longestMs = 0;
  let running = true;
  const deadline = Date.now() + 90_000;
  const loops = Array.from({ length: clients }, async () => {
    while (running && Date.now() < deadline) {
      const began = performance.now();
      try {
        const res = await agent.request({ origin, path: '/', method: 'GET', headers: { host } });
        const body = (await res.body.json()) as { release?: string; error?: { code?: string } };
        if (res.statusCode === 200 && body.release) {
          ok++;
          releases.add(body.release);
        } else {
          failures.push(`${res.statusCode} ${body.error?.code ?? ''}`);
          failedAt.push(performance.now() - startedAt);
        }
      } catch (error) {
        failures.push((error as Error).message);
        failedAt.push(performance.now() - startedAt);
      }
      longestMs = Math.max(longestMs, performance.now() - began);
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
      const failureSpans = (): string[] => {
        const spans = new Map<string, { count: number; first: number; last: number }>();
        failures.forEach((failure, i) => {
          const at = failedAt[i] ?? 0;
          const span = spans.get(failure) ?? { count: 0, first: at, last: at };
          spans.set(failure, { count: span.count + 1, first: Math.min(span.first, at), last: Math.max(span.last, at) });
        });
        return [...spans].map(([failure, s]) => `${failure} x${s.count} from ${Math.round(s.first)} ms to ${Math.round(s.last)} ms (${ok} ok)`);
      };
      return { ok, failures, releases, longestMs, failureSpans };
    },
  };
}
