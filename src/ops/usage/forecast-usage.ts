// Pure usage forecast over metered observations of one billing period.
const HOUR = 3_600_000;

/** A forecast needs at least one hour of data. */
export const FORECAST_MIN_EVIDENCE_MS = HOUR;

/** One metered point: `t` is its start (ms); counts are what it delivered. */
export interface UsageObservation {
  t: number;
  requests: number;
  bytes: number;
}

/** Forecast of one metered quantity for the current period. */
export interface Forecast {
  status: 'ok' | 'insufficient-evidence';
  /** From the first observation with usage (or period start, if later) to now; 0 without usage. */
  observationMs: number;
  averageRatePerHour: number;
  /** Usage so far plus the average rate over the rest of the period (usage so far without evidence). */
  projectedPeriodTotal: number;
  /** When the quota was or is expected to be reached within the period; null without a quota or when not expected. */
  estimatedExhaustionAt: number | null;
  /** Actual (or, with evidence, projected) usage reaches `warningPercent` of the quota. */
  warning: boolean;
}

export interface ForecastOptions {
  periodStart: number;
  periodEnd: number;
  now: number;
  quota?: { requests?: number | undefined; transferBytes?: number | undefined } | undefined;
  /** Percent of the quota that raises a warning (default 80, the monitor's `usageWarningPercent`). */
  warningPercent?: number;
}

/** Forecasts of requests and transfer bytes for the period containing `now`. */
export function forecastUsage(observations: readonly UsageObservation[], options: ForecastOptions): { requests: Forecast; transferBytes: Forecast } {
  const inPeriod = observations.filter((o) => o.t >= options.periodStart && o.t <= options.now && o.t < options.periodEnd).sort((a, b) => a.t - b.t);
  return {
    requests: forecastOne(
      inPeriod.map((o) => ({ t: o.t, value: o.requests })),
      options,
      options.quota?.requests,
    ),
    transferBytes: forecastOne(
      inPeriod.map((o) => ({ t: o.t, value: o.bytes })),
      options,
      options.quota?.transferBytes,
    ),
  };
}

function forecastOne(points: readonly { t: number; value: number }[], options: ForecastOptions, quota: number | undefined): Forecast {
  const { now, periodEnd } = options;
  const used = points.reduce((sum, p) => sum + p.value, 0);
  const first = points.find((p) => p.value > 0);
  const observationMs = first ? Math.max(0, now - Math.max(first.t, options.periodStart)) : 0;
  const status = observationMs >= FORECAST_MIN_EVIDENCE_MS ? 'ok' : 'insufficient-evidence';
  const averageRatePerHour = observationMs > 0 ? (used / observationMs) * HOUR : 0;
  const remainingMs = Math.max(0, periodEnd - now);
  const projectedPeriodTotal = status === 'ok' ? used + averageRatePerHour * (remainingMs / HOUR) : used;

  let estimatedExhaustionAt: number | null = null;
  let warning = false;
  if (quota !== undefined) {
    if (used >= quota) {
      // Already exhausted: the start of the point whose usage crossed the quota (evidence does not matter).
      let sum = 0;
      for (const p of points) {
        sum += p.value;
        if (sum >= quota) {
          estimatedExhaustionAt = p.t;
          break;
        }
      }
    } else if (status === 'ok' && averageRatePerHour > 0) {
      const at = now + ((quota - used) / averageRatePerHour) * HOUR;
      estimatedExhaustionAt = at < periodEnd ? Math.ceil(at) : null;
    }
    const threshold = (quota * (options.warningPercent ?? 80)) / 100;
    warning = used >= threshold || (status === 'ok' && projectedPeriodTotal >= threshold);
  }
  return { status, observationMs, averageRatePerHour, projectedPeriodTotal, estimatedExhaustionAt, warning };
}
