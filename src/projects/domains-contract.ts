// HTTP contract of custom domains, the edge proxy's certificate lookup and project deletion.
// Re-exported by contract.ts (the CLI reaches projects only through it); imports only zod.
import { z } from 'zod';

export const domainRoutes = {
  /** GET: the project's custom domains; POST `{ domain }`: add one. */
  domains: '/api/projects/:id/domains',
  /** DELETE: remove one custom domain. */
  domain: '/api/projects/:id/domains/:domain',
  /** GET `?domain=<host>&token=<SVC_TLS_ASK_TOKEN>` (or header x-svc-tls-ask-token): 200 only for domains svc serves. */
  tlsAsk: '/_svc/tls/ask',
} as const;

/** Header that may carry the edge lookup token instead of the `token` query parameter. */
export const TLS_ASK_TOKEN_HEADER = 'x-svc-tls-ask-token';

const isoTime = z.string().describe('ISO 8601 timestamp');

export const domainSchema = z.object({
  domain: z.string().describe('lowercase ASCII (IDNA) host name'),
  projectId: z.string(),
  createdAt: isoTime,
});
export type Domain = z.infer<typeof domainSchema>;
export const domainListResponseSchema = z.object({ domains: z.array(domainSchema), defaultHost: z.string().describe('<slug>.<app domain>, always routed') });
export type DomainListResponse = z.infer<typeof domainListResponseSchema>;
export const addDomainBodySchema = z.object({ domain: z.string().min(1).max(300) });
export const domainResponseSchema = z.object({ domain: domainSchema });
export const domainParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug'), domain: z.string().min(1).max(300) });
export const removeDomainResponseSchema = z.object({ removed: z.literal(true), domain: z.string() });

export const tlsAskQuerySchema = z.object({
  domain: z.string().min(1).max(300).describe('the server name the edge proxy wants a certificate for'),
  token: z.string().max(500).optional().describe('SVC_TLS_ASK_TOKEN (or send it in the x-svc-tls-ask-token header)'),
});
export const tlsAskResponseSchema = z.object({ allowed: z.literal(true), domain: z.string() });

/** The exact phrase that confirms deleting a site. */
export function deleteSitePhrase(projectSlug: string): string {
  return `delete-site ${projectSlug}`;
}
export const deleteProjectBodySchema = z.object({
  confirm: z.string().max(300).default('').describe('exactly "delete-site <project-slug>"'),
  acknowledgeDataLoss: z
    .boolean()
    .default(false)
    .describe('must be true: the database, releases, snapshots, backups, secrets, logs, metrics, domains and scoped tokens are removed for good'),
});
export const deleteProjectResponseSchema = z.object({
  deleted: z.literal(true),
  projectId: z.string(),
  slug: z.string(),
  auditEventId: z.string().describe('the project.delete event (stays visible in GET /api/audit)'),
  revokedTokens: z.number().int(),
});
