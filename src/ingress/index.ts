// Public surface of the ingress for the composition root and other features.
export { createIngress, type Ingress } from './create-ingress.js';
export { ingressRoutes } from './ingress-routes.js';
export { serveUpgrades } from './serve-upgrades.js';
export { ingressMigrations } from './metrics-store.js';
export { RouteTable, type UpstreamTarget } from './route-table.js';
export type { RequestRecord } from './request-record.js';
// The latency bins, for exporters that fold them into their own buckets (Prometheus).
export { binIndex, binUpperBound, emptyHistogram, LATENCY_BINS } from './latency-histogram.js';
