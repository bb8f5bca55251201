// HTTP contract of the GitHub integration: webhook path, link and installation routes. Shared by the
// server, the CLI (`svc link`, `svc unlink`) and the console; imports only zod.
import { z } from 'zod';

export const githubRoutes = {
  /** GitHub App webhook deliveries (raw JSON body, X-Hub-Signature-256). */
  webhooks: '/api/github/webhooks',
  /** GET: installations of the app known to svc, with their repositories. */
  installations: '/api/github/installations',
  /** GET: link + recent checks; PUT: link to a repository branch; DELETE: unlink. */
  link: '/api/projects/:id/github',
} as const;

export const linkBodySchema = z.object({
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'expected owner/name')
    .describe('owner/name of the repository'),
  branch: z
    .string()
    .min(1)
    .max(255)
    .regex(/^(?!refs\/)[^\s~^:?*[\\]+$/, 'expected a branch name such as main')
    .describe('branch whose pushes are released'),
  rollbackPermission: z.enum(['write', 'admin']).default('write').describe('repository permission a commenter needs for /svc rollback'),
  environment: z.string().min(1).max(255).default('production').describe('GitHub Deployments environment name'),
});

export const linkProblemSchema = z.object({
  reason: z.enum(['installation_missing', 'installation_suspended', 'repository_removed']),
  message: z.string(),
});

export const linkSchema = z.object({
  projectId: z.string(),
  repository: z.object({ id: z.number().int(), fullName: z.string() }),
  branch: z.string(),
  installationId: z.number().int(),
  rollbackPermission: z.enum(['write', 'admin']),
  environment: z.string(),
  createdAt: z.string(),
  status: z.enum(['ok', 'broken']).describe('broken: the installation was removed or suspended, or lost the repository'),
  problem: linkProblemSchema.nullable(),
});
export type GithubLink = z.infer<typeof linkSchema>;

export const checkSummarySchema = z.object({
  name: z.string(),
  sha: z.string(),
  releaseId: z.string().nullable(),
  state: z.string().describe('waiting, in_progress, success, failure, superseded or timed_out'),
  checkRunId: z.number().int().nullable(),
  synced: z.boolean().describe('GitHub shows the latest state'),
  updatedAt: z.string(),
});

export const linkResponseSchema = z.object({
  /** Whether this control plane has a GitHub App configured. */
  configured: z.boolean(),
  link: linkSchema.nullable(),
  checks: z.array(checkSummarySchema).describe('newest first'),
});
export type LinkResponse = z.infer<typeof linkResponseSchema>;

export const installationSchema = z.object({
  id: z.number().int(),
  account: z.string(),
  status: z.enum(['active', 'suspended', 'deleted']),
  repositories: z.array(z.object({ id: z.number().int(), fullName: z.string() })),
});
export const installationsResponseSchema = z.object({ configured: z.boolean(), installations: z.array(installationSchema) });

export const webhookResponseSchema = z.object({ status: z.enum(['queued', 'duplicate', 'pong']) });
