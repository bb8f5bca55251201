// What the release driver does, counted where the pipeline meets it: every health check of a started
// app (deploys, rollbacks, supervised restarts) and the supervisor's crash and restart events.
import type { Counter, Histogram } from 'prom-client';
import type { HealthResult, ReleaseDriver, ReleaseDriverHooks, SupervisorEvent } from '../../../runner/release-driver.js';

export interface DriverMetrics {
  healthChecks: Counter<'project' | 'result'>;
  healthSeconds: Histogram<'result'>;
  crashes: Counter<'project'>;
  restartFailures: Counter<'project'>;
}

/** The result label of a health check: ok, or why it failed (timeout, exited, aborted). Pure. */
export function healthResultLabel(result: HealthResult): string {
  return result.ok ? 'ok' : result.reason;
}

function countEvent(metrics: DriverMetrics, event: SupervisorEvent): void {
  if (event.type === 'crashed') metrics.crashes.inc({ project: event.projectId });
  else if (event.type === 'restart-failed') metrics.restartFailures.inc({ project: event.projectId });
}

/** Wrap a driver factory so its health checks and supervisor events are counted; everything else is the driver's own. */
export function instrumentDriver(open: (hooks: ReleaseDriverHooks) => ReleaseDriver, metrics: DriverMetrics): (hooks: ReleaseDriverHooks) => ReleaseDriver {
  return (hooks) => {
    const driver = open({
      ...hooks,
      onEvent: (event) => {
        countEvent(metrics, event);
        hooks.onEvent(event);
      },
    });
    const check = driver.checkHealth.bind(driver);
    // An own property over the class method: the driver stays the same object (its private fields
    // and every other method untouched), only this call is observed.
    driver.checkHealth = async (app, health) => {
      const result = await check(app, health);
      const label = healthResultLabel(result);
      metrics.healthChecks.inc({ project: app.projectId, result: label });
      metrics.healthSeconds.observe({ result: label }, result.elapsedMs / 1000);
      return result;
    };
    return driver;
  };
}
