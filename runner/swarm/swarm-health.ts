// The health gate of a swarm app: svc polls the app's health route at its node address and published
// port (runner/health-check.ts) while watching Docker's own verdict on the task; a rolled-back update
// or an ended task ends the check at once. A candidate that never served fails without a request.
import type { Clock } from '../../src/core/clock.js';
import { checkHealth, type HealthResult } from '../health-check.js';
import type { EngineClient } from './engine-client.js';
import { candidateNow } from './service-control.js';
import type { SwarmApp } from './swarm-app.js';
import type { CandidateState } from './task-observation.js';

const VERDICT_POLL_MS = 500;

type Failure = Extract<CandidateState, { kind: 'failed' }>;

/** Resolves after `ms`, or at once when `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** A failure as the pipeline reads a health result: an ended app `exited`, an unhealthy one `timeout`. */
function failed(failure: Failure, attempts: number, elapsedMs: number): HealthResult {
  return {
    ok: false,
    reason: failure.code === 'SVC_APP_START_FAILED' ? 'exited' : 'timeout',
    attempts,
    elapsedMs,
    lastStatus: null,
    lastError: failure.reason,
  };
}

export async function checkSwarmHealth(
  engine: EngineClient,
  clock: Clock,
  app: SwarmApp,
  health: { path: string; timeoutMs: number; signal?: AbortSignal },
): Promise<HealthResult> {
  const started = clock.now();
  if (app.failure) return failed(app.failure, 0, 0);
  const verdict = new AbortController();
  let docker: Failure | null = null;
  const watching = (async () => {
    while (!verdict.signal.aborted) {
      await abortableSleep(VERDICT_POLL_MS, verdict.signal);
      if (verdict.signal.aborted) return;
      const now = await candidateNow(engine, app.serviceName, app.generation).catch(() => null);
      if (now?.kind === 'failed' && !verdict.signal.aborted) {
        docker = now;
        verdict.abort();
      }
    }
  })();
  const signal = health.signal ? AbortSignal.any([verdict.signal, health.signal]) : verdict.signal;
  const result = await checkHealth({ host: app.host, port: app.port, path: health.path, timeoutMs: health.timeoutMs, exited: app.wait(), signal });
  verdict.abort();
  await watching;
  if (docker === null || result.ok) return result;
  const failure: Failure = docker;
  app.markExited({ code: failure.exitCode, signal: null, at: clock.now() });
  return failed(failure, result.attempts, clock.now() - started);
}
