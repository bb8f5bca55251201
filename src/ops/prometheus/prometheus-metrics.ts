// Builds the control plane's Prometheus metrics when SVC_METRICS_TOKEN is set: one registry with
// Node's process metrics (memory, event-loop lag), request series of the ingress and the API,
// release and rollback outcomes, health checks, supervisor events and app states. prom-client is
// loaded only then, so a platform without metrics pays nothing for it.
import type { Metric, Registry } from 'prom-client';
import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import { findProject } from '../../projects/index.js';
import type { Ingress } from '../../ingress/index.js';
import { listActiveReleases, type ReleaseObserver } from '../../releases/index.js';
import type { ReleaseDriver, ReleaseDriverHooks } from '../../../runner/release-driver.js';
import { countApiRequests } from './api-requests.js';
import { edgeFamilies, type EdgeRoutesReply } from './edge-series.js';
import { instrumentDriver, type DriverMetrics } from './driver-series.js';
import { metricsRoute } from './metrics-route.js';
import { readMetricsToken, tokenDigest } from './metrics-token.js';
import { PIPELINE_BUCKETS, releaseMetricsObserver } from './release-series.js';
import { family, RequestSeries, type SampledFamily } from './request-series.js';

type OpenDriver = (hooks: ReleaseDriverHooks) => ReleaseDriver;

/** The metrics as the composition root wires them; every part is a no-op when metrics are off. */
export interface PrometheusMetrics {
  readonly enabled: boolean;
  /** Counts releases, rollbacks and upload bytes (combine with the other release observers). */
  readonly releaseObserver: ReleaseObserver | null;
  /** Count the health checks and supervisor events of the driver the factory opens. */
  instrumentDriver(open: OpenDriver): OpenDriver;
  /** App states per driver, read at scrape time (call once the releases feature exists). */
  watchApps(source: { driver: ReleaseDriver; isPlaced(projectId: string): boolean }): void;
  /** `GET /metrics` and the API request hook. */
  routes(app: HttpApp): Promise<void>;
}

/** Read SVC_METRICS_TOKEN (a malformed one throws SVC_METRICS_CONFIG) and build the metrics, or the disabled stand-in. */
export async function createPrometheusMetrics(
  ctx: FeatureContext,
  deps: {
    ingress: Pick<Ingress, 'onRequestComplete' | 'routes'>;
    /** Ask the ingress process for its routes (`{ op: 'routes' }` on its command socket); null when none answers. */
    askEdge?: () => Promise<EdgeRoutesReply>;
  },
): Promise<PrometheusMetrics> {
  const token = readMetricsToken(ctx.config.env);
  if (token === null) {
    return { enabled: false, releaseObserver: null, instrumentDriver: (open) => open, watchApps: () => undefined, routes: metricsRoute(null) };
  }
  const client = await import('prom-client');
  const registry: Registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const add = (f: SampledFamily) => registry.registerMetric(f as unknown as Metric); // a custom metric: the registry only calls get()

  const ingressSeries = new RequestSeries('svc_ingress', 'app requests through the ingress');
  deps.ingress.onRequestComplete((r) => ingressSeries.record(r.projectId, r.status, r.latencyMs, r.bytes));
  for (const f of ingressSeries.families()) add(f);
  const apiSeries = new RequestSeries('svc_api', 'control-plane API requests');
  for (const f of apiSeries.families((key) => (key === '' ? null : (findProject(ctx, key)?.id ?? null)))) add(f);
  for (const f of edgeFamilies(() => deps.ingress.routes.list(), deps.askEdge ?? (async () => null))) add(f);

  const labels = ['project', 'outcome'] as const;
  const releaseObserver = releaseMetricsObserver(ctx, {
    releases: new client.Counter({
      name: 'svc_releases_total',
      help: 'Finished release transactions by outcome (success: the release became active).',
      labelNames: labels,
      registers: [registry],
    }),
    releaseSeconds: new client.Histogram({
      name: 'svc_release_duration_seconds',
      help: 'Release transaction time, candidate to active or failed.',
      labelNames: labels,
      buckets: PIPELINE_BUCKETS,
      registers: [registry],
    }),
    rollbacks: new client.Counter({ name: 'svc_rollbacks_total', help: 'Finished rollbacks by outcome.', labelNames: labels, registers: [registry] }),
    rollbackSeconds: new client.Histogram({
      name: 'svc_rollback_duration_seconds',
      help: 'Rollback time, lock taken to target serving or undone.',
      labelNames: labels,
      buckets: PIPELINE_BUCKETS,
      registers: [registry],
    }),
    uploadBytes: new client.Counter({
      name: 'svc_release_upload_bytes_total',
      help: 'Compressed artifact bytes of accepted release uploads.',
      labelNames: ['project'],
      registers: [registry],
    }),
  });
  const driverMetrics: DriverMetrics = {
    healthChecks: new client.Counter({
      name: 'svc_health_checks_total',
      help: 'Health checks of started apps (deploys, rollbacks, restarts) by result: ok, timeout, exited, aborted.',
      labelNames: ['project', 'result'],
      registers: [registry],
    }),
    healthSeconds: new client.Histogram({
      name: 'svc_health_check_duration_seconds',
      help: 'Time from the first health request to the result.',
      labelNames: ['result'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    crashes: new client.Counter({
      name: 'svc_app_crashes_total',
      help: 'Supervised apps that exited unexpectedly.',
      labelNames: ['project'],
      registers: [registry],
    }),
    restartFailures: new client.Counter({
      name: 'svc_app_restart_failures_total',
      help: 'Supervised restarts that could not start the app.',
      labelNames: ['project'],
      registers: [registry],
    }),
  };

  let apps: { driver: ReleaseDriver; isPlaced(projectId: string): boolean } | null = null;
  add(
    family('svc_apps', 'Active releases by driver and state: running, restarting, stopped (not running here), placed (on a runner node).', 'gauge', () => {
      if (apps === null) return [];
      const counts = { running: 0, restarting: 0, stopped: 0, placed: 0 };
      for (const row of listActiveReleases(ctx)) {
        if (apps.isPlaced(row.project_id)) counts.placed++;
        else counts[apps.driver.status(row.project_id)?.state ?? 'stopped']++;
      }
      const driver = apps.driver.kind;
      return Object.entries(counts).map(([state, value]) => ({ labels: { driver, state }, value }));
    }),
  );

  return {
    enabled: true,
    releaseObserver,
    instrumentDriver: (open) => instrumentDriver(open, driverMetrics),
    watchApps: (source) => void (apps = source),
    async routes(app) {
      countApiRequests(app, apiSeries);
      await metricsRoute({ tokenDigest: tokenDigest(token), contentType: registry.contentType, render: () => registry.metrics() })(app);
    },
  };
}
