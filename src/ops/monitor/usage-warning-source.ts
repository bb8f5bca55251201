import type { UsageConfig } from '../usage/usage-config.js';
import { projectUsage, type UsageMetrics } from '../usage/usage-routes.js';
import type { MonitorSource } from './monitor-sources.js';

/**
 * Forecast usage warning (kind `usage.warning`, one per quantity): the forecast's warning flag —
 * actual usage, or with an hour of evidence the projected period total, at or above
 * `warningPercent` of the monthly quota. Resolves once it falls below. Nothing without a quota.
 */
export function usageWarningSource(metrics: UsageMetrics, config: Pick<UsageConfig, 'quota' | 'warningPercent'>): MonitorSource {
  return (projectIds, now) => {
    if (config.quota.requests === undefined && config.quota.transferBytes === undefined) return [];
    const out: Awaited<ReturnType<MonitorSource>> = [];
    for (const projectId of projectIds) {
      const { usage, forecast } = projectUsage(metrics, projectId, now, config);
      for (const quantity of ['requests', 'transferBytes'] as const) {
        const f = forecast[quantity];
        if (!f.warning) continue;
        out.push({
          key: `usage.warning:${projectId}:${quantity}`,
          kind: 'usage.warning',
          projectId,
          details: {
            quantity,
            used: usage[quantity],
            quota: usage.quota[quantity],
            warningPercent: config.warningPercent,
            status: f.status,
            projectedPeriodTotal: Math.round(f.projectedPeriodTotal),
            estimatedExhaustionAt: f.estimatedExhaustionAt === null ? null : new Date(f.estimatedExhaustionAt).toISOString(),
          },
        });
      }
    }
    return out;
  };
}
