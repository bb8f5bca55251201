// Step 9 of the release transaction: poll the app's health route until it answers 2xx.
import { systemClock, type Clock } from '../src/core/clock.js';
import type { RunningApp } from './app-runner.js';
import { healthCheckDelay } from './health-backoff.js';

export interface HealthCheckOptions {
  host: string;
  port: number;
  /** `health.path` of svc.deploy.json (default "/"). */
  path?: string;
  /** `health.timeoutMs` (default 30000). */
  timeoutMs?: number;
  /** A fixed pause between attempts instead of the default backoff (100 ms doubling to 1 s; see health-backoff.ts). */
  intervalMs?: number;
  /** Bound on one request (default 2000 ms, never beyond the overall deadline). */
  requestTimeoutMs?: number;
  clock?: Clock;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Resolves when the app exited: the check stops at once instead of waiting out the timeout. */
  exited?: Promise<unknown>;
  signal?: AbortSignal;
  /** Resolves once the app listens (RunningApp.listening): the pause it ends early is followed by a probe at once; used once. */
  listening?: (signal: AbortSignal) => Promise<void>;
}

/** Why a health check failed. */
export type HealthFailure = 'timeout' | 'exited' | 'aborted';

export type HealthResult =
  | { ok: true; status: number; attempts: number; elapsedMs: number }
  | { ok: false; reason: HealthFailure; attempts: number; elapsedMs: number; lastStatus: number | null; lastError: string | null };

/** Poll `http://host:port<path>` until a 2xx answer, the app exits, or the timeout passes. */
export async function checkHealth(options: HealthCheckOptions): Promise<HealthResult> {
  const clock = options.clock ?? systemClock;
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const path = options.path ?? '/';
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}${path.startsWith('/') ? path : `/${path}`}`;
  const started = clock.now();
  const deadline = started + (options.timeoutMs ?? 30_000);
  let exited = false;
  void options.exited?.then(() => {
    exited = true;
  });
  let attempts = 0;
  let lastStatus: number | null = null;
  let lastError: string | null = null;
  const fail = (reason: HealthFailure): HealthResult => ({ ok: false, reason, attempts, elapsedMs: clock.now() - started, lastStatus, lastError });
  // A starting app is usually not listening at the first probe; the back-off pause after it would
  // otherwise outlast the start by up to its whole length. Woken once, the schedule goes on unchanged.
  const stopListening = new AbortController();
  // A failed look (the runner could not tell) only means no early wake.
  let woken: Promise<'woken'> | null = options.listening
    ? options.listening(stopListening.signal).then(
        () => 'woken' as const,
        () => new Promise<never>(() => {}),
      )
    : null;
  try {
    return await probeLoop();
  } finally {
    stopListening.abort();
  }

  async function probeLoop(): Promise<HealthResult> {
    for (;;) {
      if (options.signal?.aborted) return fail('aborted');
      if (exited) return fail('exited');
      const remaining = deadline - clock.now();
      if (remaining <= 0) return fail('timeout');
      attempts++;
      try {
        const timeout = AbortSignal.timeout(Math.max(1, Math.min(options.requestTimeoutMs ?? 2000, remaining)));
        const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
        const response = await doFetch(url, { signal, redirect: 'manual', headers: { 'user-agent': 'svc-health-check' } });
        await response.body?.cancel();
        lastStatus = response.status;
        lastError = null;
        if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, attempts, elapsedMs: clock.now() - started };
      } catch (error) {
        lastError = (error as Error).message;
      }
      // Let a pending exit notification land before deciding to wait again.
      await Promise.resolve();
      if (exited) return fail('exited');
      const remainingMs = Math.max(0, deadline - clock.now());
      const pause = sleep(options.intervalMs === undefined ? healthCheckDelay(attempts, remainingMs) : Math.min(options.intervalMs, remainingMs));
      if (woken && (await Promise.race([pause.then(() => 'slept' as const), woken])) === 'woken') woken = null;
      else await pause;
    }
  }
}

/** Check a started app on its own address, stopping early when it exits (what a driver's checkHealth does for a local process). */
export function checkAppHealth(app: RunningApp, health: { path: string; timeoutMs: number; signal?: AbortSignal }): Promise<HealthResult> {
  return checkHealth({
    host: app.host,
    port: app.port,
    path: health.path,
    timeoutMs: health.timeoutMs,
    exited: app.wait(),
    ...(health.signal ? { signal: health.signal } : {}),
    ...(app.listening ? { listening: (signal: AbortSignal) => app.listening!(signal) } : {}),
  });
}
