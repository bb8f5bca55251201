// Steady traffic to a project's app through the ingress by its host: clients that keep asking until
// stopped, counting every answer that is not a 200 from the app as a failure, and the longest wait.
import { Agent } from 'undici';

export interface TrafficReport {
  ok: number;
  failures: string[];
  releases: Set<string>;
  /** The slowest answer in ms (a held request counts as a success that took this long). */
  longestMs: number;
}

export function steadyTraffic(origin: string, host: string, clients = 4): { stop(): Promise<TrafficReport> } {
  const agent = new Agent({ connections: clients });
  const failures: string[] = [];
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
        } else failures.push(`${res.statusCode} ${body.error?.code ?? ''}`);
      } catch (error) {
        failures.push((error as Error).message);
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
      return { ok, failures, releases, longestMs };
    },
  };
}
