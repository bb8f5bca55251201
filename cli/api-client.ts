// Typed client for the control plane's HTTP API as the CLI uses it. Every response is
// validated against the shared zod contracts (src/*/contract.ts); errors arrive as SvcError.
import type { z } from 'zod';
import { healthPaths, readinessSchema } from '../src/core/http/health-contract.js';
import {
  createTokenResponseSchema,
  currentTokenResponseSchema,
  deviceStartResponseSchema,
  deviceTokenResponseSchema,
  identityRoutes,
  meResponseSchema,
  revokeTokenResponseSchema,
  routePath,
  tokenListResponseSchema,
  type Permission,
} from '../src/identity/contract.js';
import { projectListResponseSchema, projectResponseSchema, projectRoutes } from '../src/projects/contract.js';
import { auditPageSchema, auditRoutes } from '../src/audit/contract.js';
import { usageResponseSchema, usagePaths, workspaceUsageResponseSchema } from '../src/ops/contract.js';
import { isolationSchema } from '../src/releases/contract.js';
import { getStatusBody, sendRequest, type HttpClientOptions, type RequestSpec } from './http-request.js';
import { loadCredentials, requireCredentials, type ResolvedCredentials } from './credentials.js';
import type { CliEffects } from './context.js';

/** GET /readyz as the CLI reads it: the checks, and the isolation detail of servers that report it. */
export const serverReadinessSchema = readinessSchema.extend({ isolation: isolationSchema.optional() });
export type ServerReadiness = z.infer<typeof serverReadinessSchema>;

/** Body of `svc tokens create`. */
export interface CreateTokenInput {
  name: string;
  projectId?: string | undefined;
  permissions: Permission[];
  expiresInDays?: number | undefined;
}

/** A client bound to one server origin and (optionally) one bearer token. */
export class ApiClient {
  constructor(readonly options: HttpClientOptions) {}

  /** Send any contract-described request (for commands whose routes have no helper here). */
  request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    return sendRequest(this.options, spec);
  }

  /** POST /api/device/start: obtain a device code and a user code. */
  startDeviceLogin(clientName: string): Promise<z.output<typeof deviceStartResponseSchema>> {
    return this.request({ method: 'POST', path: identityRoutes.deviceStart, body: { clientName }, schema: deviceStartResponseSchema, idempotent: false });
  }

  /** POST /api/device/token: one poll; throws SVC_DEVICE_* errors until the code is approved. Never retried here. */
  pollDeviceToken(deviceCode: string): Promise<z.output<typeof deviceTokenResponseSchema>> {
    return this.request({ method: 'POST', path: identityRoutes.deviceToken, body: { deviceCode }, schema: deviceTokenResponseSchema, idempotent: false });
  }

  /** GET /api/me: who the token belongs to. */
  me(): Promise<z.output<typeof meResponseSchema>> {
    return this.request({ method: 'GET', path: identityRoutes.me, schema: meResponseSchema });
  }

  /** GET /api/tokens/current: the token making this request (its scope, permissions and expiry). */
  currentToken(): Promise<z.output<typeof currentTokenResponseSchema>> {
    return this.request({ method: 'GET', path: identityRoutes.currentToken, schema: currentTokenResponseSchema });
  }

  /** GET /api/tokens: the caller's tokens (never raw values). */
  listTokens(): Promise<z.output<typeof tokenListResponseSchema>> {
    return this.request({ method: 'GET', path: identityRoutes.tokens, schema: tokenListResponseSchema });
  }

  /** POST /api/tokens: returns the raw token once. Not retried (a retry could mint a second token). */
  createToken(input: CreateTokenInput): Promise<z.output<typeof createTokenResponseSchema>> {
    return this.request({ method: 'POST', path: identityRoutes.tokens, body: input, schema: createTokenResponseSchema, idempotent: false });
  }

  /** DELETE /api/tokens/:id. */
  revokeToken(id: string): Promise<z.output<typeof revokeTokenResponseSchema>> {
    return this.request({ method: 'DELETE', path: routePath(identityRoutes.token, { id }), schema: revokeTokenResponseSchema });
  }

  /** DELETE /api/tokens/current: revoke the token making this request. */
  revokeCurrentToken(): Promise<z.output<typeof revokeTokenResponseSchema>> {
    return this.request({ method: 'DELETE', path: identityRoutes.currentToken, schema: revokeTokenResponseSchema });
  }

  /** GET /api/projects (optionally one organization's). */
  listProjects(organizationId?: string): Promise<z.output<typeof projectListResponseSchema>> {
    return this.request({ method: 'GET', path: projectRoutes.projects, query: { organizationId }, schema: projectListResponseSchema });
  }

  /** POST /api/projects. Not retried: a lost response followed by a retry would hit a slug conflict. */
  createProject(input: { name: string; slug?: string | undefined; organizationId?: string | undefined }): Promise<z.output<typeof projectResponseSchema>> {
    return this.request({ method: 'POST', path: projectRoutes.projects, body: input, schema: projectResponseSchema, idempotent: false });
  }

  /** GET /api/projects/:id (id or slug). */
  getProject(id: string): Promise<z.output<typeof projectResponseSchema>> {
    return this.request({ method: 'GET', path: routePath(projectRoutes.project, { id }), schema: projectResponseSchema });
  }

  /** GET /api/projects/:id/usage: this month's metered usage of one project, with forecasts. */
  projectUsage(id: string): Promise<z.output<typeof usageResponseSchema>> {
    return this.request({ method: 'GET', path: routePath(usagePaths.project, { id }), schema: usageResponseSchema });
  }

  /** GET /api/orgs/:id/usage: this month's usage of a workspace (organization), with forecasts. */
  workspaceUsage(id: string): Promise<z.output<typeof workspaceUsageResponseSchema>> {
    return this.request({ method: 'GET', path: routePath(usagePaths.workspace, { id }), schema: workspaceUsageResponseSchema });
  }

  /** GET /readyz (no token needed): 200 ready or 503 not ready, both with the body. */
  async readiness(): Promise<{ ready: boolean; body: ServerReadiness }> {
    const { status, body } = await getStatusBody(this.options, healthPaths.readyz, serverReadinessSchema, [200, 503]);
    return { ready: status === 200, body };
  }

  /** GET /api/audit: newest-first page of the workspace history (the `svc activity` feed). */
  listAudit(
    query: { limit?: number | undefined; before?: string | undefined; organizationId?: string | undefined } = {},
  ): Promise<z.output<typeof auditPageSchema>> {
    return this.request({ method: 'GET', path: auditRoutes.feed, query, schema: auditPageSchema });
  }
}

/** A client and the credentials it was built from. */
export interface Connection {
  client: ApiClient;
  credentials: ResolvedCredentials;
}

/**
 * Build a client for a command: server from --server / SVC_SERVER / stored login, token from
 * SVC_TOKEN / stored login. With `requireToken` (the default) a missing token is SVC_NOT_LOGGED_IN.
 */
export async function connect(
  effects: Pick<CliEffects, 'home' | 'env' | 'http'>,
  options: { server?: string; requireToken?: boolean } = {},
): Promise<Connection> {
  const where = { home: effects.home, env: effects.env };
  const credentials = options.requireToken === false ? await loadCredentials(where, options.server) : await requireCredentials(where, options.server);
  const client = new ApiClient({ server: credentials.server, token: credentials.token, http: effects.http, userAgent: 'svc-cli' });
  return { client, credentials };
}
