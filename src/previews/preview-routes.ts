// HTTP routes of previews: list, one, delete, and the project's preview settings.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { appendAudit } from '../audit/append-audit.js';
import { actorOf, platformOrigin } from '../identity/index.js';
import { findProject, projectUrl, requireProjectPermission, type ProjectRow } from '../projects/index.js';
import { listReleases } from '../releases/index.js';
import {
  deletePreviewResponseSchema,
  previewListResponseSchema,
  previewParamsSchema,
  previewResponseSchema,
  previewRoutes as r,
  previewSettingsResponseSchema,
  previewSettingsSchema,
  type Preview,
} from './contract.js';
import type { PreviewsFeature } from './previews-feature.js';
import { findPreviewRow, listPreviewRows, previewRowOf, readDataSource, writeDataSource, type PreviewRow } from './preview-store.js';
import { toPreview } from './preview-view.js';
import { z } from 'zod';

const tags = ['previews'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });

/** Previews belong to the production project; a preview has none of its own. */
function assertProduction(ctx: FeatureContext, project: ProjectRow): void {
  if (previewRowOf(ctx, project.id)) throw new SvcError('SVC_PREVIEW_NOT_PREVIEW');
}

/** Register the previews routes. */
export function previewRoutes(ctx: FeatureContext, previews: PreviewsFeature) {
  const view = (row: PreviewRow, origin: string): Preview => {
    const project = findProject(ctx, row.project_id);
    const slug = project?.slug ?? '';
    const newest = listReleases(ctx, row.project_id)[0];
    return toPreview(row, {
      slug,
      url: projectUrl(origin, slug, ctx.config.appDomain),
      activeReleaseId: project?.active_release_id ?? null,
      newest: newest ? { id: newest.id, status: newest.status } : null,
    });
  };
  const findOr404 = (parentId: string, number: number): PreviewRow => {
    const row = findPreviewRow(ctx, parentId, number);
    if (!row) throw new SvcError('SVC_PREVIEW_NOT_FOUND', `Pull request #${number} has no preview.`);
    return row;
  };

  return async function register(app: HttpApp): Promise<void> {
    app.get(
      r.previews,
      { schema: { tags, security, summary: "The project's pull-request previews", params: projectParams, response: { 200: previewListResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        assertProduction(ctx, project);
        const origin = platformOrigin(request, ctx.config.publicUrl);
        return {
          previews: listPreviewRows(ctx, project.id).map((row) => view(row, origin)),
          limit: previews.settings.limit,
          idleStopMs: previews.settings.idleStopMs,
        };
      },
    );

    app.get(
      r.preview,
      { schema: { tags, security, summary: "One pull request's preview", params: previewParamsSchema, response: { 200: previewResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        assertProduction(ctx, project);
        return { preview: view(findOr404(project.id, request.params.number), platformOrigin(request, ctx.config.publicUrl)) };
      },
    );

    app.delete(
      r.preview,
      {
        schema: {
          tags,
          security,
          summary: "Remove a preview now: its app, data and host (deploy permission; the pull request's next push creates it again)",
          params: previewParamsSchema,
          response: { 200: deletePreviewResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'deploy');
        assertProduction(ctx, project);
        const row = findOr404(project.id, request.params.number);
        await previews.remove(row, actorOf(principal), 'deleted by request');
        return { deleted: true as const, number: row.number, projectId: row.project_id };
      },
    );

    app.get(
      r.settings,
      { schema: { tags, security, summary: "The project's preview settings", params: projectParams, response: { 200: previewSettingsResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        assertProduction(ctx, project);
        return { settings: { data: readDataSource(ctx, project.id) } };
      },
    );

    app.put(
      r.settings,
      {
        schema: {
          tags,
          security,
          summary: 'Set where new previews get their data (admin permission; "production" copies real user data into every new preview)',
          params: projectParams,
          body: previewSettingsSchema,
          response: { 200: previewSettingsResponseSchema },
        },
      },
      async (request) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'admin');
        assertProduction(ctx, project);
        ctx.db
          .transaction(() => {
            writeDataSource(ctx, project.id, request.body.data);
            appendAudit(ctx, {
              kind: 'preview.settings',
              organizationId: project.organization_id,
              projectId: project.id,
              actor: actorOf(principal),
              metadata: { data: request.body.data },
            });
          })
          .immediate();
        return { settings: { data: request.body.data } };
      },
    );
  };
}
