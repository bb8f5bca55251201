// Open-loop load on projects through the ingress: each stream fires requests at a fixed rate whether
// or not earlier ones were answered (so a held request never slows the offered load), half of them
// over kept-alive connections (an undici Agent), half on a new connection each (`agent: false`).
// Every answer that is not a 200 from the app is a failure; a held request answered 200 is a success.
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent } from 'undici';

export interface LoadConfig {
  /** `http://127.0.0.1:<port>` of the public port. */
  origin: string;
  /** Host headers of the projects (`<slug>.localhost`). */
  hosts: string[];
  /** Requests per second of each (host × connection mode) stream. */
  ratePerStream: number;
}

export interface LoadReport {
  sent: number;
  ok: number;
  failures: string[];
  /** When each failure was answered (Date.now()), in the order of `failures`. */
  failedAt: number[];
  /** Latency of every answered request (ms), sorted. */
  p50: number;
  p99: number;
  max: number;
  durationMs: number;
  /** Answered requests per second over the run. */
  rate: number;
  /** Releases seen answering, per host. */
  releases: Record<string, string[]>;
  /** Event-loop delay of the process generating the load (ms): high values would distort latencies. */
  loopDelayP99: number;
  loopDelayMax: number;
  /** When the load began (Date.now()), for lining the timeline up with what the test did. */
  startedAtMs: number;
  /** Per host, one line per second of sending: `<s> ok <n> fail <n> p50 <ms> max <ms>` (where latency went). */
  timeline: Record<string, string[]>;
}

const REQUEST_TIMEOUT_MS = 60_000;

/** Start the load; stop() waits for every request in flight and reports. */
export function startLoad(config: LoadConfig): { stop(): Promise<LoadReport> } {
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS });
  const url = new URL(config.origin);
  const latencies: number[] = [];
  const failures: string[] = [];
  const failedAt: number[] = [];
  const fail = (what: string): void => {
    failures.push(what);
    failedAt.push(Date.now());
  };
  const releases = new Map<string, Set<string>>(config.hosts.map((h) => [h, new Set()]));
  const inFlight = new Set<Promise<void>>();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const started = performance.now();
  const startedAtMs = Date.now();
  loop.enable();
  let sent = 0;

  // Per host and second of sending: answered latencies and failures.
  const seconds = new Map<string, { latencies: number[]; failed: number }[]>(config.hosts.map((h) => [h, []]));
  const second = (host: string, began: number): { latencies: number[]; failed: number } => {
    const list = seconds.get(host)!;
    const index = Math.floor((began - started) / 1000);
    return (list[index] ??= { latencies: [], failed: 0 });
  };

  const record = (host: string, began: number, status: number, text: string): void => {
    let body: { release?: string; error?: { code?: string } } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not JSON: a failure below
    }
    if (status === 200 && typeof body.release === 'string') {
      const latency = performance.now() - began;
      latencies.push(latency);
      second(host, began).latencies.push(latency);
      releases.get(host)!.add(body.release);
    } else {
      second(host, began).failed++;
      fail(`${host} ${status} ${body.error?.code ?? text.slice(0, 120)}`);
    }
  };

  const keptAlive = async (host: string): Promise<void> => {
    const began = performance.now();
    try {
      const res = await agent.request({ origin: config.origin, path: '/', method: 'GET', headers: { host } });
      record(host, began, res.statusCode, await res.body.text());
    } catch (error) {
      second(host, began).failed++;
      fail(`${host} keep-alive: ${(error as Error).message}`);
    }
  };

  const fresh = (host: string): Promise<void> =>
    new Promise((resolve) => {
      const began = performance.now();
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: '/', method: 'GET', agent: false, headers: { host }, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            record(host, began, res.statusCode ?? 0, text);
            resolve();
          });
          res.on('error', (error) => {
            second(host, began).failed++;
            fail(`${host} new connection: ${error.message}`);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) => {
        second(host, began).failed++;
        fail(`${host} new connection: ${error.message}`);
        resolve();
      });
      req.end();
    });

  const streams = config.hosts.flatMap((host) => [() => keptAlive(host), () => fresh(host)]);
  const fired = streams.map(() => 0);
  const ticker = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * config.ratePerStream);
    streams.forEach((fire, i) => {
      for (; fired[i]! < due; fired[i]!++) {
        sent++;
        const p = fire().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
    });
  }, 5);

  return {
    async stop() {
      clearInterval(ticker);
      const durationMs = performance.now() - started;
      while (inFlight.size > 0) await Promise.all([...inFlight]);
      loop.disable();
      await agent.close();
      latencies.sort((a, b) => a - b);
      const at = (q: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
      return {
        sent,
        ok: latencies.length,
        failures,
        failedAt,
        p50: at(0.5),
        p99: at(0.99),
        max: Math.round(latencies[latencies.length - 1] ?? 0),
        durationMs: Math.round(durationMs),
        rate: Math.round((latencies.length / durationMs) * 1000),
        releases: Object.fromEntries([...releases].map(([h, s]) => [h, [...s]])),
        loopDelayP99: Math.round(loop.percentile(99) / 1e6),
        loopDelayMax: Math.round(loop.max / 1e6),
        startedAtMs,
        timeline: Object.fromEntries(
          [...seconds].map(([host, list]) => [
            host,
            [...list.entries()].map(([s, w]) => {
              const sorted = (w ?? { latencies: [], failed: 0 }).latencies.sort((a, b) => a - b);
              const p50 = Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0);
              return `${s} ok ${sorted.length} fail ${w?.failed ?? 0} p50 ${p50} max ${Math.round(sorted[sorted.length - 1] ?? 0)}`;
            }),
          ]),
        ),
      };
    },
  };
}
