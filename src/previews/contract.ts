// HTTP contract of preview environments (one running copy per pull request): paths, the preview's
// wire shape and the preview host rule. Shared by the server, the CLI and the console; imports only zod.
import { z } from 'zod';

export const previewRoutes = {
  /** GET: the project's previews, with the live limit. */
  previews: '/api/projects/:id/previews',
  /** GET one preview; DELETE tears it down (the pull request stays open; a new push deploys it again). */
  preview: '/api/projects/:id/previews/:number',
  /** POST: upload a release of the pull request's head commit (same body and headers as a release upload). */
  previewReleases: '/api/projects/:id/previews/:number/releases',
  /** GET / PUT: the project's preview settings (where a preview's data comes from). */
  settings: '/api/projects/:id/preview-settings',
} as const;

/** The slug a preview project gets: `pr-<number>--<slug>`. The double dash keeps it out of every user slug. Pure. */
export function previewSlug(parentSlug: string, number: number): string {
  return `pr-${number}--${parentSlug}`;
}

/** The GitHub environment of a preview's Deployment. Pure. */
export function previewEnvironment(number: number): string {
  return `preview/pr-${number}`;
}

const isoTime = z.string().describe('ISO 8601 timestamp');

/**
 * A preview's state: `waiting` (no release uploaded for the head commit yet), `deploying`, `active`
 * (serving), `sleeping` (stopped while idle; the next request starts it), `failed` (the head commit's
 * release failed; an older preview release may still serve).
 */
export const previewStateSchema = z.enum(['waiting', 'deploying', 'active', 'sleeping', 'failed']);
export type PreviewState = z.infer<typeof previewStateSchema>;

/** Where a new preview's data comes from: an empty data directory (migrations only) or a copy of production's. */
export const previewDataSourceSchema = z.enum(['empty', 'production']);
export type PreviewDataSource = z.infer<typeof previewDataSourceSchema>;

export const previewSchema = z.object({
  number: z.number().int().positive().describe('pull request number'),
  projectId: z.string().describe("the preview's own project id (its releases, logs and data)"),
  slug: z.string().describe('pr-<number>--<project slug>'),
  url: z.string().describe('where the preview is served'),
  parentProjectId: z.string(),
  title: z.string(),
  author: z.string().nullable(),
  headRef: z.string().describe('the pull request branch'),
  headSha: z.string().describe('the pull request head commit (the only commit a preview upload may name)'),
  state: previewStateSchema,
  releaseId: z.string().nullable().describe('the serving release, if any'),
  releaseCommitSha: z.string().nullable().describe('the commit the serving release was built from'),
  dataSource: previewDataSourceSchema,
  createdAt: isoTime,
  updatedAt: isoTime,
  lastRequestAt: isoTime.nullable(),
});
export type Preview = z.infer<typeof previewSchema>;

export const previewListResponseSchema = z.object({
  previews: z.array(previewSchema),
  limit: z.number().int().positive().describe('most live previews the project may have'),
  idleStopMs: z.number().int().nonnegative().describe('a preview with no request for this long is stopped (0: never)'),
});
export const previewResponseSchema = z.object({ preview: previewSchema });
export const previewParamsSchema = z.object({
  id: z.string().min(1).max(100).describe('project id or slug'),
  number: z.coerce.number().int().positive().max(1_000_000_000).describe('pull request number'),
});
export const deletePreviewResponseSchema = z.object({ deleted: z.literal(true), number: z.number().int(), projectId: z.string() });

export const previewSettingsSchema = z.object({
  data: previewDataSourceSchema.describe('"production" copies the production database into each new preview: previews then hold real user data'),
});
export type PreviewSettings = z.infer<typeof previewSettingsSchema>;
export const previewSettingsResponseSchema = z.object({ settings: previewSettingsSchema });
