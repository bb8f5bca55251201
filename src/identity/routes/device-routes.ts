import type { FeatureContext } from '../../core/feature-context.js';
import type { HttpApp } from '../../core/http/create-http-app.js';
import { authenticate } from '../authenticate.js';
import {
  identityRoutes as r,
  deviceDecisionBodySchema,
  deviceDecisionResponseSchema,
  deviceInfoQuerySchema,
  deviceInfoResponseSchema,
  deviceStartBodySchema,
  deviceStartResponseSchema,
  deviceTokenBodySchema,
  deviceTokenResponseSchema,
} from '../contract.js';
import type { DeviceService } from '../device-service.js';
import { platformOrigin } from '../same-origin.js';

const tags = ['device login'];

/** `/api/device/*`: start and poll (public), review/approve/deny (browser session; approve and deny need CSRF). */
export function deviceRoutes(ctx: FeatureContext, devices: DeviceService) {
  return async function register(app: HttpApp): Promise<void> {
    app.post(
      r.deviceStart,
      {
        schema: {
          tags,
          summary: 'Start a device login: device code (secret) and user code (shown)',
          body: deviceStartBodySchema,
          response: { 200: deviceStartResponseSchema },
        },
      },
      async (request) => devices.start(request.body.clientName, platformOrigin(request, ctx.config.publicUrl), request.ip),
    );

    app.post(
      r.deviceToken,
      {
        schema: {
          tags,
          summary: 'Poll for the access token (returned exactly once after approval)',
          body: deviceTokenBodySchema,
          response: { 200: deviceTokenResponseSchema },
        },
      },
      async (request) => devices.poll(request.body.deviceCode),
    );

    app.get(
      r.deviceInfo,
      {
        schema: {
          tags,
          summary: 'Client name and status of a user code, for review',
          security: [{ session: [] }],
          querystring: deviceInfoQuerySchema,
          response: { 200: deviceInfoResponseSchema },
        },
      },
      async (request) => {
        const principal = authenticate(ctx, request, { token: false });
        return devices.review(principal, request.ip, request.query.userCode);
      },
    );

    for (const decision of ['approve', 'deny'] as const) {
      app.post(
        decision === 'approve' ? r.deviceApprove : r.deviceDeny,
        {
          schema: {
            tags,
            summary: `${decision === 'approve' ? 'Approve' : 'Deny'} a device login (session + CSRF)`,
            security: [{ session: [] }],
            body: deviceDecisionBodySchema,
            response: { 200: deviceDecisionResponseSchema },
          },
        },
        async (request) => {
          const principal = authenticate(ctx, request, { token: false });
          const result = devices.decide(principal, request.ip, request.body.userCode, decision);
          return { userCode: result.userCode, clientName: result.clientName, status: result.status };
        },
      );
    }
  };
}
