// Public surface of src/ops for the composition root and other features.
export { createOps, type OpsFeature } from './ops-feature.js';
export type { OpenDrillDriver } from './drills/release-drill-boot.js';
export { opsMigrations } from './ops-migrations.js';
export { isPlatformAdmin, requirePlatformAdmin } from './platform-admin.js';
export { createOperationsMonitor, type OperationsMonitor, type OperationsMonitorOptions } from './monitor/operations-monitor.js';
export { webhookNotifier, verifyWebhookSignature } from './monitor/webhook-notifier.js';
export type { OperationalAlert } from './monitor/incident-store.js';
export type { RestoreDrillsOptions, DrillBackups, DrillCheck } from './drills/run-due-drill.js';
export type { StoredDrillReceipt } from './drills/drill-store.js';
export type { JobProvider } from './monitor/job-inspection.js';
