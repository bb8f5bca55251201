import { SvcError } from '../../core/errors.js';
import type { FeatureContext } from '../../core/feature-context.js';
import { sessionOnly, type HttpApp } from '../../core/http/create-http-app.js';
import { operationsRunSchema, operationsStateSchema, type OperationsState } from '../contract.js';
import { requirePlatformAdmin } from '../platform-admin.js';
import { drillOverview } from '../drills/drill-store.js';
import { readMonitorOverview } from './incident-store.js';
import type { OperationsMonitor } from './operations-monitor.js';

const tags = ['operations'];

/** `GET /api/admin/operations` (monitor state) and `POST /api/admin/operations/run` (one poll; CSRF). */
export function operationsRoutes(ctx: FeatureContext, monitor: OperationsMonitor | undefined) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      '/api/admin/operations',
      { schema: { tags, security: sessionOnly, summary: 'Operations monitor state (platform admin)', response: { 200: operationsStateSchema } } },
      async (request) => {
        requirePlatformAdmin(ctx, request);
        const state = monitor
          ? { configured: true, ...monitor.overview() }
          : { configured: false, intervalMs: false as const, ...readMonitorOverview(ctx.db), drills: drillOverview(ctx.db) };
        return state as OperationsState;
      },
    );
    app.post(
      '/api/admin/operations/run',
      { schema: { tags, security: sessionOnly, summary: 'Run one monitor pass now (platform admin, CSRF)', response: { 200: operationsRunSchema } } },
      async (request) => {
        requirePlatformAdmin(ctx, request);
        if (!monitor) throw new SvcError('SVC_OPS_NOT_CONFIGURED');
        const controller = new AbortController();
        request.raw.once('close', () => controller.abort());
        return { pass: await monitor.runOnce(controller.signal) };
      },
    );
  };
}
