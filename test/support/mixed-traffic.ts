// Steady mixed traffic through a platform's public port until stopped: GETs over keep-alive and
// over a new connection each, POSTs with a JSON body, and calls to the platform's own API. Every
// answer that is not the expected 2xx counts as a failure; the slowest answer is the longest hold.
import { request as httpRequest } from 'node:http';
import { Agent } from 'undici';

export interface TrafficFailure {
  /** 0 app GET keep-alive, 1 app GET new connection, 2 app POST with body, 3 platform API GET. */
  kind: number;
  what: string;
  /** When the request was sent, in ms since the traffic started. */
  sentAtMs: number;
}

/** One answered or failed request. */
export interface TrafficSample {
  kind: number;
  sentAtMs: number;
  ms: number;
  ok: boolean;
}

export interface MixedTrafficReport {
  ok: number;
  failures: TrafficFailure[];
  longestMs: number;
  perSecond: number;
  /** Every request, for per-kind and per-phase figures. */
  samples: TrafficSample[];
}

export interface MixedTrafficTarget {
  origin: string;
  /** Host header of the project's app (`<slug>.localhost:<port>`). */
  appHost: string;
  /** A platform API path and the bearer token to call it with. */
  apiPath: string;
  token: string;
}

function freshConnectionGet(origin: string, host: string): Promise<number> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    httpRequest({ host: url.hostname, port: url.port, path: '/', headers: { host }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

export function mixedTraffic(target: MixedTrafficTarget, loopsPerKind = 2): { elapsedMs(): number; okSoFar(): number; stop(): Promise<MixedTrafficReport> } {
  const agent = new Agent({ connections: 4 * loopsPerKind });
  const failures: TrafficFailure[] = [];
  const samples: TrafficSample[] = [];
  let ok = 0;
  let longestMs = 0;
  let running = true;
  const began = performance.now();
  const kinds: (() => Promise<number>)[] = [
    async () => {
      const res = await agent.request({ origin: target.origin, path: '/', method: 'GET', headers: { host: target.appHost } });
      await res.body.text();
      return res.statusCode;
    },
    () => freshConnectionGet(target.origin, target.appHost),
    async () => {
      const res = await agent.request({
        origin: target.origin,
        path: '/notes',
        method: 'POST',
        headers: { host: target.appHost, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'n'.repeat(900) }),
      });
      await res.body.text();
      return res.statusCode;
    },
    async () => {
      const res = await agent.request({ origin: target.origin, path: target.apiPath, method: 'GET', headers: { authorization: `Bearer ${target.token}` } });
      await res.body.text();
      return res.statusCode;
    },
  ];
  const loops = [0, 1, 2, 3]
    .flatMap((kind) => Array.from({ length: loopsPerKind }, () => kind))
    .map(async (kind) => {
      while (running) {
        const start = performance.now();
        let passed = false;
        try {
          const status = await kinds[kind]!();
          passed = status >= 200 && status < 300;
          if (passed) ok++;
          else failures.push({ kind, what: String(status), sentAtMs: Math.round(start - began) });
        } catch (error) {
          failures.push({ kind, what: (error as Error).message, sentAtMs: Math.round(start - began) });
        }
        const ms = performance.now() - start;
        longestMs = Math.max(longestMs, ms);
        samples.push({ kind, sentAtMs: start - began, ms, ok: passed });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
  return {
    elapsedMs: () => performance.now() - began,
    okSoFar: () => ok,
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
      return { ok, failures, longestMs, perSecond: ok / ((performance.now() - began) / 1000), samples };
    },
  };
}
