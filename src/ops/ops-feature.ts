import type { BackupsFeature } from '../backups/index.js';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { auditExportConfigFromEnv } from './audit-export/audit-export-config.js';
import { auditExportRoutes } from './audit-export/audit-export-routes.js';
import { createAuditExporter, type AuditExporter } from './audit-export/audit-exporter.js';
import { monitorConfigFromEnv } from './monitor/monitor-config.js';
import { backupOverdueSource, deploymentFailureSource } from './monitor/monitor-sources.js';
import { createOperationsMonitor, type OperationsMonitor } from './monitor/operations-monitor.js';
import { operationsRoutes } from './monitor/operations-routes.js';
import { webhookNotifier } from './monitor/webhook-notifier.js';
import { usageConfigFromEnv } from './usage/usage-config.js';
import { usageRoutes, type UsageMetrics } from './usage/usage-routes.js';

/** The operations features as the composition root sees them. */
export interface OpsFeature {
  /** Present only when audit export is configured. */
  auditExporter: AuditExporter | undefined;
  /** Present only when the monitor is configured. */
  monitor: OperationsMonitor | undefined;
  routes(app: HttpApp): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/** Build audit export and the operations monitor (with their admin routes) from environment settings; all opt-in. */
export function createOps(ctx: FeatureContext, deps: { backups: Pick<BackupsFeature, 'list'>; metrics?: UsageMetrics }, env: NodeJS.ProcessEnv = process.env): OpsFeature {
  const exportConfig = auditExportConfigFromEnv(env);
  const auditExporter = exportConfig
    ? createAuditExporter({ db: ctx.db, clock: ctx.clock, logger: ctx.logger, privateKey: exportConfig.privateKey, keyId: exportConfig.keyId, destination: exportConfig.destination, ...(exportConfig.intervalMs === undefined ? {} : { intervalMs: exportConfig.intervalMs }) })
    : undefined;
  const monitorConfig = monitorConfigFromEnv(env);
  const monitor = monitorConfig
    ? createOperationsMonitor({
        db: ctx.db,
        clock: ctx.clock,
        ids: ctx.ids,
        logger: ctx.logger,
        intervalMs: monitorConfig.intervalMs,
        usageWarningPercent: monitorConfig.usageWarningPercent,
        notify: webhookNotifier({ url: monitorConfig.webhookUrl, secret: monitorConfig.webhookSecret }),
        sources: [deploymentFailureSource(ctx), backupOverdueSource(deps.backups)],
      })
    : undefined;
  const plugins = [auditExportRoutes(ctx, auditExporter ? { keyId: auditExporter.keyId } : undefined), operationsRoutes(ctx, monitor), usageRoutes(ctx, deps.metrics, usageConfigFromEnv(env))];
  return {
    auditExporter,
    monitor,
    async routes(app) {
      for (const plugin of plugins) await plugin(app);
    },
    start() {
      auditExporter?.start();
      monitor?.start();
    },
    async close() {
      await Promise.all([auditExporter?.stop(), monitor?.stop()]);
    },
  };
}
