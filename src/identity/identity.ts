import type { FeatureContext } from '../core/feature-context.js';
import type { HttpApp } from '../core/http/create-http-app.js';
import { createAccountService, type AccountService } from './account-service.js';
import { createDeviceService, type DeviceService } from './device-service.js';
import { authRoutes } from './routes/auth-routes.js';
import { deviceRoutes } from './routes/device-routes.js';
import { meRoutes } from './routes/me-routes.js';
import { orgRoutes } from './routes/org-routes.js';
import { pageRoutes } from './routes/page-routes.js';
import { tokenRoutes } from './routes/token-routes.js';
import type { IdentityDeps } from './identity-deps.js';

export interface IdentityFeature {
  accounts: AccountService;
  devices: DeviceService;
  /** Fastify plugin registering every identity route. */
  routes(app: HttpApp): Promise<void>;
}

/** Build accounts, sessions, device login, tokens and organizations over the control database. */
export function createIdentity(ctx: FeatureContext, deps: IdentityDeps): IdentityFeature {
  const accounts = createAccountService(ctx);
  const devices = createDeviceService(ctx);
  const plugins = [
    authRoutes(ctx, accounts),
    deviceRoutes(ctx, devices),
    meRoutes(ctx),
    tokenRoutes(ctx, deps),
    orgRoutes(ctx),
    pageRoutes(ctx, accounts, devices),
  ];
  return {
    accounts,
    devices,
    async routes(app) {
      for (const plugin of plugins) await plugin(app);
    },
  };
}
