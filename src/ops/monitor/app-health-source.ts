// Unhealthy always-on application: a project with an active release whose app is not running
// (crashed, restarting, not supervised) or does not answer its health path with 2xx — for longer
// than a grace, so a restart in progress is not an alert.
import { defaultHttpClient } from '../../core/http/http-client.js';
import type { MonitorSource } from './monitor-sources.js';

/** What the source reads of the releases feature and its supervisor (declared where consumed). */
export interface AppHealthReader {
  /** The project's active release and its health path, or null without one. */
  active(projectId: string): { releaseId: string; healthPath: string } | null;
  /** The supervised app: null when the supervisor does not run it. */
  status(projectId: string): { state: 'running' | 'restarting'; crashStreak: number; host: string | null; port: number | null } | null;
}

export interface AppHealthOptions {
  reader: AppHealthReader;
  /** How long an app may be unhealthy before it is an incident. */
  graceMs: number;
  /** One loopback health request; resolves to the status or null (error, timeout). */
  probe?: (url: string, signal: AbortSignal) => Promise<number | null>;
  probeTimeoutMs?: number;
  /** Parallel probes (bounded). */
  concurrency?: number;
}

/** A single GET without redirects; any failure is null. */
export async function probeHealth(url: string, signal: AbortSignal): Promise<number | null> {
  try {
    const answer = await defaultHttpClient.open({ method: 'GET', url, signal, timeoutMs: null }); // the caller's signal bounds it
    answer.discard();
    return answer.status;
  } catch {
    return null;
  }
}

/** The unhealthy-app source (kind `app.unhealthy`). */
export function unhealthyAppSource(options: AppHealthOptions): MonitorSource {
  const probe = options.probe ?? probeHealth;
  return async (projectIds, _now, signal) => {
    const subjects = projectIds.flatMap((projectId) => {
      const active = options.reader.active(projectId);
      return active ? [{ projectId, active }] : [];
    });
    const out: Awaited<ReturnType<MonitorSource>> = [];
    let next = 0;
    const worker = async () => {
      while (next < subjects.length && !signal?.aborted) {
        const { projectId, active } = subjects[next++]!;
        const status = options.reader.status(projectId);
        let reason: string | null = null;
        let healthStatus: number | null = null;
        if (!status) reason = 'not-running';
        else if (status.state !== 'running' || status.port === null) reason = 'restarting';
        else {
          const host = status.host && status.host.includes(':') ? `[${status.host}]` : (status.host ?? '127.0.0.1');
          const path = active.healthPath.startsWith('/') ? active.healthPath : `/${active.healthPath}`;
          const timeout = AbortSignal.timeout(options.probeTimeoutMs ?? 2000);
          healthStatus = await probe(`http://${host}:${status.port}${path}`, signal ? AbortSignal.any([timeout, signal]) : timeout);
          if (healthStatus === null || healthStatus < 200 || healthStatus > 299) reason = 'failing-health';
        }
        if (reason)
          out.push({
            key: `app.unhealthy:${projectId}`,
            kind: 'app.unhealthy',
            projectId,
            graceMs: options.graceMs,
            details: { releaseId: active.releaseId, reason, crashStreak: status?.crashStreak ?? null, healthPath: active.healthPath, healthStatus },
          });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 8, subjects.length)) }, worker));
    return out.sort((a, b) => (a.key < b.key ? -1 : 1));
  };
}
