// Public surface of src/ops for the composition root and other features.
export { createOps, type OpsFeature } from './ops-feature.js';
export type { OpenDrillDriver } from './drills/release-drill-boot.js';
export { opsMigrations } from './ops-migrations.js';
export { isPlatformAdmin } from './platform-admin.js';
export { createPrometheusMetrics } from './prometheus/prometheus-metrics.js';
