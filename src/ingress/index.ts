// Public surface of the ingress for the composition root and other features.
export { createIngress, type Ingress } from './create-ingress.js';
export { ingressRoutes } from './ingress-routes.js';
export { serveUpgrades } from './serve-upgrades.js';
export { ingressMigrations } from './metrics-store.js';
export { RouteTable, type UpstreamTarget } from './route-table.js';
export type { RequestRecord } from './request-record.js';
