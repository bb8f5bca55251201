// Public surface of the ingress for the composition root and other features.
export { createIngress, tcpProbe, type Ingress, type IngressOptions } from './create-ingress.js';
export { ingressRoutes } from './ingress-routes.js';
export { serveUpgrades } from './serve-upgrades.js';
export { ingressMigrations, metricsRetention } from './metrics-store.js';
export { RouteTable, routesToCandidate, type CanaryRoute, type RouteEntry, type RoutedProject, type Upstream, type UpstreamTarget } from './route-table.js';
export { normalizeHost } from './host-matcher.js';
export { isReservedPath } from './reserved-paths.js';
export type { RequestObserver, RequestRecord } from './request-record.js';
export type { MetricsReport, MetricsWindow } from './metrics-series.js';
