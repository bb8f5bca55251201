import { findSchedule, listSchedules, type BackupsFeature } from '../backups/index.js';
import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { activeReleaseRow, releaseConfig } from '../releases/index.js';
import type { ReleaseDriver } from '../../runner/release-driver.js';
import { auditExportConfigFromEnv } from './audit-export/audit-export-config.js';
import { auditExportRoutes } from './audit-export/audit-export-routes.js';
import { auditExportStatus } from './audit-export/audit-exporter.js';
import { createAuditExporter, type AuditExporter } from './audit-export/audit-exporter.js';
import { backupDrillSource } from './drills/backup-drill-source.js';
import { drillConfigFromEnv } from './drills/drill-config.js';
import type { StoredDrillReceipt } from './drills/drill-store.js';
import { releaseDrillBoot, releaseHealthChecks, type OpenDrillDriver } from './drills/release-drill-boot.js';
import type { RestoreDrillsOptions } from './drills/run-due-drill.js';
import { unhealthyAppSource } from './monitor/app-health-source.js';
import type { JobProvider } from './monitor/job-inspection.js';
import { monitorConfigFromEnv } from './monitor/monitor-config.js';
import { backupFailureSource, backupOverdueSource, deploymentFailureSource } from './monitor/monitor-sources.js';
import { createOperationsMonitor, type OperationsMonitor } from './monitor/operations-monitor.js';
import { operationsRoutes } from './monitor/operations-routes.js';
import { usageWarningSource } from './monitor/usage-warning-source.js';
import { webhookNotifier } from './monitor/webhook-notifier.js';
import { usageConfigFromEnv } from './usage/usage-config.js';
import { usageRoutes, type UsageMetrics } from './usage/usage-routes.js';
import { workspaceUsageRoutes } from './usage/workspace-usage.js';

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

/** What the operations features read of other features (all optional but backups). */
export interface OpsDeps {
  backups: Pick<BackupsFeature, 'list' | 'deps'>;
  metrics?: UsageMetrics;
  /** The releases' driver, read for unhealthy always-on apps; without it that source is off. */
  supervisor?: Pick<ReleaseDriver, 'status' | 'current'>;
  /** A release driver of its own per restore drill (the platform's runner kind); without it drills are off. */
  openDrillDriver?: OpenDrillDriver;
  /** Decrypted project secrets (drills pass them only with SVC_RESTORE_DRILL_SECRETS=true). */
  loadSecrets?: (projectId: string) => Promise<Record<string, string>>;
  /** Projects a runner node converges: no local app to probe or drill. */
  isPlaced?: (projectId: string) => boolean;
  /** Receives each drill receipt (GitHub posts it as a svc/restore-drill check run of a linked project). */
  drillObserver?: { onDrillReceipt(receipt: StoredDrillReceipt): void };
}

/** Scheduled jobs the monitor inspects besides alert delivery and drills: backup schedules, audit export. */
function platformJobs(ctx: FeatureContext, exporter: AuditExporter | undefined): JobProvider[] {
  const jobs: JobProvider[] = [
    {
      kind: 'backup-schedule',
      list: () => listSchedules(ctx).map((s) => ({ key: `backup-schedule:${s.project_id}`, kind: 'backup-schedule', projectId: s.project_id })),
      nextRunAt: (job) => findSchedule(ctx, job.projectId!)?.next_due_at ?? null,
    },
  ];
  if (exporter) {
    jobs.push({
      kind: 'audit-export',
      list: () => [{ key: 'audit-export', kind: 'audit-export', projectId: null }],
      // Due only while signed entries wait for acknowledgement.
      nextRunAt: () => {
        const status = auditExportStatus(ctx.db, { keyId: exporter.keyId });
        return status.pending > 0 || status.signedThrough < status.auditThrough ? (status.nextAttemptAt ?? status.lastAttemptAt) : null;
      },
    });
  }
  return jobs;
}

/** Build audit export and the operations monitor (with their admin routes) from environment settings; all opt-in. */
export function createOps(ctx: FeatureContext, deps: OpsDeps, env: NodeJS.ProcessEnv = process.env): OpsFeature {
  const exportConfig = auditExportConfigFromEnv(env);
  const auditExporter = exportConfig
    ? createAuditExporter({
        db: ctx.db,
        clock: ctx.clock,
        logger: ctx.logger,
        privateKey: exportConfig.privateKey,
        keyId: exportConfig.keyId,
        destination: exportConfig.destination,
        ...(exportConfig.intervalMs === undefined ? {} : { intervalMs: exportConfig.intervalMs }),
      })
    : undefined;
  const monitorConfig = monitorConfigFromEnv(env);
  const usageConfig = usageConfigFromEnv(env);
  const drillConfig = monitorConfig ? drillConfigFromEnv(env) : undefined;
  const openDrillDriver = deps.openDrillDriver;
  const restoreDrills: RestoreDrillsOptions | undefined =
    drillConfig && openDrillDriver
      ? {
          intervalMs: drillConfig.intervalMs,
          timeoutMs: drillConfig.timeoutMs,
          boot: releaseDrillBoot(ctx, {
            openDriver: openDrillDriver,
            withSecrets: drillConfig.withSecrets,
            ...(deps.loadSecrets ? { loadSecrets: deps.loadSecrets } : {}),
          }),
          checks: drillConfig.checks ?? releaseHealthChecks(ctx),
          backups: backupDrillSource(deps.backups),
          eligible: (projectId) => !deps.isPlaced?.(projectId) && activeReleaseRow(ctx, projectId) !== undefined,
          releaseOf: (projectId) => activeReleaseRow(ctx, projectId)?.id ?? null,
          ...(deps.drillObserver ? { onReceipt: (r: StoredDrillReceipt) => deps.drillObserver!.onDrillReceipt(r) } : {}),
        }
      : undefined;
  const supervisor = deps.supervisor;
  const monitor = monitorConfig
    ? createOperationsMonitor({
        db: ctx.db,
        clock: ctx.clock,
        ids: ctx.ids,
        logger: ctx.logger,
        intervalMs: monitorConfig.intervalMs,
        usageWarningPercent: monitorConfig.usageWarningPercent,
        notify: webhookNotifier({ url: monitorConfig.webhookUrl, secret: monitorConfig.webhookSecret }),
        sources: [
          deploymentFailureSource(ctx),
          backupOverdueSource(deps.backups),
          backupFailureSource(deps.backups),
          ...(supervisor
            ? [
                unhealthyAppSource({
                  graceMs: monitorConfig.unhealthyGraceMs,
                  reader: {
                    active: (projectId) => {
                      if (deps.isPlaced?.(projectId)) return null;
                      const row = activeReleaseRow(ctx, projectId);
                      return row ? { releaseId: row.id, healthPath: releaseConfig(row).health.path } : null;
                    },
                    status: (projectId) => {
                      const s = supervisor.status(projectId);
                      return s ? { state: s.state, crashStreak: s.crashStreak, host: supervisor.current(projectId)?.host ?? null, port: s.port } : null;
                    },
                  },
                }),
              ]
            : []),
          ...(deps.metrics ? [usageWarningSource(deps.metrics, { ...usageConfig, warningPercent: monitorConfig.usageWarningPercent })] : []),
        ],
        jobs: platformJobs(ctx, auditExporter),
        jobGraceMs: monitorConfig.jobGraceMs,
        ...(restoreDrills ? { restoreDrills } : {}),
      })
    : undefined;
  const plugins = [
    auditExportRoutes(ctx, auditExporter ? { keyId: auditExporter.keyId } : undefined),
    operationsRoutes(ctx, monitor),
    usageRoutes(ctx, deps.metrics, usageConfig),
    workspaceUsageRoutes(ctx, deps.metrics, usageConfig),
  ];
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
