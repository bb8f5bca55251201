// HTTP contract of projects and the dashboard: paths, slug rules and zod schemas.
// Shared by the server, the CLI and the console; imports only zod.
import { z } from 'zod';

export const projectRoutes = {
  projects: '/api/projects',
  project: '/api/projects/:id',
  dashboard: '/api/dashboard',
} as const;

/** Slugs: 3–40 of lowercase ASCII letters, digits and single dashes, no leading/trailing dash. */
export const PROJECT_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?!-)){1,38}[a-z0-9]$/;

/** Names that would collide with platform hosts or paths when used as `<slug>.<domain>`. */
export const RESERVED_SLUGS: readonly string[] = [
  'api',
  'admin',
  'www',
  'svc',
  'app',
  'apps',
  'console',
  'dashboard',
  'login',
  'logout',
  'register',
  'device',
  'auth',
  'oauth',
  'static',
  'assets',
  'cdn',
  'localhost',
  'mail',
  'smtp',
  'status',
  'health',
  'healthz',
  'livez',
  'readyz',
  'root',
  'system',
  'platform',
  'default',
  'internal',
  'docs',
  'help',
  'support',
  'billing',
  'settings',
  'account',
  'accounts',
  'new',
  'null',
  'undefined',
  'github',
  'webhooks',
  'metrics',
  'tls',
];

/** Why a slug is not acceptable, or null when it is (pure; the server and CLI share it). */
export function checkProjectSlug(slug: string): 'invalid' | 'reserved' | null {
  if (!PROJECT_SLUG_PATTERN.test(slug)) return 'invalid';
  if (RESERVED_SLUGS.includes(slug)) return 'reserved';
  return null;
}

/** Derive a slug candidate from a display name (ASCII only; the result is still checked). */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
}

const isoTime = z.string().describe('ISO 8601 timestamp');

/** Runtime state of a site: its state, active release and default URL. */
export const projectStatusSchema = z.object({
  state: z.string().describe('"new" until the first release; later: "active", "failed", "stopped"'),
  activeReleaseId: z.string().nullable(),
  url: z.string().describe('default app URL, http://<slug>.localhost:<port>'),
});
export const projectSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  organizationId: z.string(),
  createdAt: isoTime,
  status: projectStatusSchema,
});
export type Project = z.infer<typeof projectSchema>;

export const createProjectBodySchema = z.object({
  name: z.string().trim().min(1).max(100),
  slug: z.string().max(100).optional().describe('defaults to a slug derived from name'),
  organizationId: z.string().min(1).max(100).optional().describe("organization id or slug; defaults to the caller's personal organization"),
});
export const projectResponseSchema = z.object({ project: projectSchema });
export const projectListQuerySchema = z.object({ organizationId: z.string().min(1).max(100).optional() });
export const projectListResponseSchema = z.object({ projects: z.array(projectSchema) });
export const projectParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

export const dashboardResponseSchema = z.object({
  user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
  organizations: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      role: z.enum(['owner', 'admin', 'developer', 'viewer']),
      projects: z.array(projectSchema),
    }),
  ),
});

// Custom domains, the edge certificate lookup and project deletion.
export * from './domains-contract.js';

// What deleting a project erases, shown before the phrase is asked for (`svc project delete`, the console's dialog).
export * from './deletion-preview.js';
