import type { FeatureContext } from '../../core/feature-context.js';
import { sessionOnly, type HttpApp } from '../../core/http/create-http-app.js';
import { auditExportStatusSchema } from '../contract.js';
import { requirePlatformAdmin } from '../platform-admin.js';
import { auditExportStatus } from './audit-exporter.js';

/** `GET /api/admin/audit-export`: delivery status for the platform admin (works with export off). */
export function auditExportRoutes(ctx: FeatureContext, configured: { keyId: string } | undefined) {
  return async function register(app: HttpApp): Promise<void> {
    app.get(
      '/api/admin/audit-export',
      {
        schema: {
          tags: ['operations'],
          security: sessionOnly,
          summary: 'Audit export delivery status (platform admin)',
          response: { 200: auditExportStatusSchema },
        },
      },
      async (request) => {
        requirePlatformAdmin(ctx, request);
        return auditExportStatus(ctx.db, configured);
      },
    );
  };
}
