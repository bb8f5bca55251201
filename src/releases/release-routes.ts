// HTTP routes of releases: upload (raw artifact body), history, one release, rollback, storage.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearerOrSession, type HttpApp } from '../core/http/create-http-app.js';
import { SvcError } from '../core/errors.js';
import { resolveLimits } from '../artifacts/index.js';
import { actorOf, platformOrigin, type Principal } from '../identity/index.js';
import { projectUrl, requireProjectPermission, type ProjectAccess, type ProjectRow } from '../projects/index.js';
import {
  COMMIT_SHA_HEADER,
  COMMIT_SHA_PATTERN,
  REPOSITORY_ID_HEADER,
  DIGEST_HEADER,
  IDEMPOTENCY_HEADER,
  UPLOAD_MEDIA_TYPE,
  releaseListResponseSchema,
  releaseParamsSchema,
  releaseResponseSchema,
  releaseRoutes as r,
  rollbackBodySchema,
  rollbackQuerySchema,
  rollbackResponseSchema,
  storageResponseSchema,
  uploadQuerySchema,
  uploadResponseSchema,
} from './contract.js';
import { CANARY_HEADER } from '../canary/contract.js';
import { projectStorage } from './project-storage.js';
import type { ReleaseDeps } from './release-deps.js';
import { activeReleaseRow, getRelease, listReleases, toRelease } from './release-store.js';
import { rollbackRelease, startRollback } from './rollback.js';
import { guardUploadIdle } from './guard-upload-idle.js';
import { uploadRelease, type UploadTracker } from './upload-release.js';

const tags = ['releases'];
const security = bearerOrSession;
const projectParams = z.object({ id: z.string().min(1).max(100).describe('project id or slug') });
const uploadHeaders = z.object({
  [DIGEST_HEADER]: z.string().optional().describe('lowercase hex SHA-256 of the body'),
  [IDEMPOTENCY_HEADER]: z.string().optional().describe('8–200 printable characters; the same key returns the same release'),
  [COMMIT_SHA_HEADER]: z.string().optional().describe('full commit SHA the artifact was built from (CI uploads)'),
  [REPOSITORY_ID_HEADER]: z.string().optional().describe('numeric GitHub repository id of that commit'),
  [CANARY_HEADER]: z
    .enum(['1', 'true'])
    .optional()
    .describe('run a canary rollout (the canary policy of svc.deploy.json, or the default one) when a baseline release is running'),
});

/** The optional commit/repository headers of a CI upload, validated. */
function sourceOf(headers: Record<string, string | string[] | undefined>): { commitSha: string; repositoryId: number | null } | null {
  const sha = headerValue(headers[COMMIT_SHA_HEADER]);
  const repo = headerValue(headers[REPOSITORY_ID_HEADER]);
  if (sha === undefined) {
    if (repo !== undefined) throw new SvcError('SVC_BAD_REQUEST', `${REPOSITORY_ID_HEADER} needs ${COMMIT_SHA_HEADER}.`);
    return null;
  }
  if (!COMMIT_SHA_PATTERN.test(sha)) throw new SvcError('SVC_BAD_REQUEST', `${COMMIT_SHA_HEADER} must be a full lowercase hex commit SHA.`);
  if (repo !== undefined && !/^[1-9][0-9]{0,15}$/.test(repo)) throw new SvcError('SVC_BAD_REQUEST', `${REPOSITORY_ID_HEADER} must be a positive integer.`);
  return { commitSha: sha, repositoryId: repo === undefined ? null : Number(repo) };
}

/** A body declared larger than the limit is refused before a byte of it is read. */
function checkDeclaredLength(header: string | undefined, maxBytes: number): void {
  if (header !== undefined && /^[0-9]+$/.test(header) && Number(header) > maxBytes) {
    throw new SvcError('SVC_ARTIFACT_REQUEST_TOO_LARGE', `The upload declares ${header} bytes; the limit is ${maxBytes}.`);
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function subjectOf(project: ProjectRow, principal: Parameters<typeof actorOf>[0]) {
  return { project: { id: project.id, slug: project.slug, organizationId: project.organization_id }, actor: actorOf(principal) };
}

/** Resolve an upload's caller from a non-svc_ bearer (GitHub Actions OIDC); null = use authenticate. */
/** A GitHub Actions OIDC bearer's principal (null: not an OIDC request); `preview` names the pull request of a preview upload. */
export type UploadPrincipalResolver = (request: FastifyRequest, projectIdOrSlug: string, preview?: number) => Promise<Principal | null>;

/** Where a pull request's preview uploads go: the preview project and the only commit it may release. */
export interface PreviewUploads {
  target(parentProjectIdOrSlug: string, number: number): { projectId: string; headSha: string };
}

const previewUploadParams = projectParams.extend({ number: z.coerce.number().int().positive().max(1_000_000_000).describe('pull request number') });

/** Register the release routes. */
export function releaseRoutes(deps: ReleaseDeps, tracker: UploadTracker, uploadPrincipal?: UploadPrincipalResolver, previews?: PreviewUploads) {
  const { ctx } = deps;
  const { maxRequestBytes } = resolveLimits(deps.artifactLimits);
  const storageOf = async (projectId: string) => ({
    usage: await projectStorage(deps, projectId),
    limits: { maxRetainedArtifacts: deps.settings.maxRetainedArtifacts, maxStorageBytes: deps.settings.maxStorageBytes },
  });

  async function upload(request: FastifyRequest, reply: FastifyReply, access: ProjectAccess, wait: boolean) {
    const { principal, project } = access;
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type !== UPLOAD_MEDIA_TYPE) throw new SvcError('SVC_UNSUPPORTED_MEDIA_TYPE', `Send the artifact as ${UPLOAD_MEDIA_TYPE}.`);
    checkDeclaredLength(request.headers['content-length'], maxRequestBytes);
    const body = request.body as Readable | undefined;
    if (!body || typeof (body as Partial<Readable>)[Symbol.asyncIterator] !== 'function') throw new SvcError('SVC_BAD_REQUEST', 'The upload body is missing.');
    const result = await uploadRelease(deps, tracker, {
      ...subjectOf(project, principal),
      digest: headerValue(request.headers[DIGEST_HEADER]),
      idempotencyKey: headerValue(request.headers[IDEMPOTENCY_HEADER]),
      body: guardUploadIdle(body, deps.settings.uploadIdleTimeoutMs),
      source: sourceOf(request.headers),
      canaryRequested: request.headers[CANARY_HEADER] !== undefined,
    });
    const row = wait ? await result.done : result.release;
    const status = !wait && row.status === 'candidate' ? 202 : result.created ? 201 : 200;
    const url = projectUrl(platformOrigin(request, ctx.config.publicUrl), project.slug, ctx.config.appDomain); // the Action's `url` output
    return reply.status(status).send({ release: toRelease(ctx, row), created: result.created, url });
  }

  return async function register(app: HttpApp): Promise<void> {
    await app.register(async (plain) => {
      const scope = plain.withTypeProvider<ZodTypeProvider>();
      // The body is handed over as the raw stream; decodeArtifact enforces every size limit while reading.
      scope.addContentTypeParser(UPLOAD_MEDIA_TYPE, (_request, payload, done) => done(null, payload));
      const uploadSchema = {
        tags,
        security,
        querystring: uploadQuerySchema,
        headers: uploadHeaders,
        response: { 200: uploadResponseSchema, 201: uploadResponseSchema, 202: uploadResponseSchema },
      };
      scope.post(
        r.releases,
        {
          schema: {
            ...uploadSchema,
            summary: `Upload an artifact (${UPLOAD_MEDIA_TYPE} body) and run the release transaction (deploy permission)`,
            params: projectParams,
          },
        },
        async (request, reply) => {
          const oidc = uploadPrincipal ? await uploadPrincipal(request, request.params.id) : null; // a GitHub Actions OIDC bearer
          const access = requireProjectPermission(ctx, request, request.params.id, 'deploy', oidc ? { principal: oidc } : {});
          return upload(request, reply, access, request.query.wait);
        },
      );
      scope.post(
        r.previewReleases,
        {
          schema: {
            ...uploadSchema,
            summary: `Upload an artifact of a pull request's head commit (${UPLOAD_MEDIA_TYPE} body) and release it into the pull request's preview (deploy permission)`,
            params: previewUploadParams,
          },
        },
        async (request, reply) => {
          const { id, number } = request.params;
          // An OIDC bearer must come from this pull request's workflow; other credentials need deploy on production.
          const oidc = uploadPrincipal ? await uploadPrincipal(request, id, number) : null;
          const parent = oidc ? null : requireProjectPermission(ctx, request, id, 'deploy');
          if (!previews) throw new SvcError('SVC_PREVIEW_NOT_FOUND', 'Previews are not available on this platform.');
          const target = previews.target(parent?.project.id ?? id, number);
          const declared = headerValue(request.headers[COMMIT_SHA_HEADER]);
          if (declared === undefined) throw new SvcError('SVC_BAD_REQUEST', `A preview upload names the pull request's head commit in ${COMMIT_SHA_HEADER}.`);
          if (declared !== target.headSha) {
            throw new SvcError(
              'SVC_PREVIEW_COMMIT_SUPERSEDED',
              `Commit ${declared.slice(0, 7)} is not the head of pull request #${number} (${target.headSha.slice(0, 7)}); it is not released.`,
            );
          }
          const principal = oidc ?? parent!.principal;
          const access = requireProjectPermission(ctx, request, target.projectId, 'deploy', { principal });
          return upload(request, reply, access, request.query.wait);
        },
      );
    });

    app.get(
      r.releases,
      {
        schema: {
          tags,
          security,
          summary: 'Release history (newest first) with storage usage',
          params: projectParams,
          response: { 200: releaseListResponseSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return {
          releases: listReleases(ctx, project.id).map((row) => toRelease(ctx, row)),
          activeReleaseId: activeReleaseRow(ctx, project.id)?.id ?? null,
          storage: await storageOf(project.id),
        };
      },
    );

    app.get(
      r.release,
      { schema: { tags, security, summary: 'One release', params: releaseParamsSchema, response: { 200: releaseResponseSchema } } },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return { release: toRelease(ctx, getRelease(ctx, project.id, request.params.releaseId)) };
      },
    );

    app.post(
      r.rollback,
      {
        schema: {
          tags,
          security,
          summary: 'Roll back to an inactive release (code only, or with restoreData and the confirmation phrase)',
          description:
            "With wait=false a refused request still fails at once; an accepted one answers 202 (running: true) and the rollback continues: GET …/releases/:releaseId/events of the target streams its steps and ends with how it ended. A placed project's rollback always answers when done (200).",
          params: projectParams,
          querystring: rollbackQuerySchema,
          body: rollbackBodySchema,
          response: { 200: rollbackResponseSchema, 202: rollbackResponseSchema },
        },
      },
      async (request, reply) => {
        const { principal, project } = requireProjectPermission(ctx, request, request.params.id, 'rollback');
        const input = {
          ...subjectOf(project, principal),
          releaseId: request.body.releaseId,
          restoreData: request.body.restoreData,
          confirm: request.body.confirm,
        };
        if (request.query.wait || deps.placement?.isPlaced(project.id)) {
          const result = await rollbackRelease(deps, input);
          return { release: toRelease(ctx, result.release), previousReleaseId: result.previousReleaseId, restoredData: result.restoredData };
        }
        const started = await startRollback(deps, input);
        // Shutdown waits for it like for a deploy; its failure reaches followers through the event hub.
        tracker.trackRelease(
          started.target.id,
          started.done.then(
            (result) => result.release,
            (error: unknown) => {
              ctx.logger.warn({ err: error, releaseId: started.target.id }, 'rollback failed');
              return started.target;
            },
          ),
        );
        return reply
          .status(202)
          .send({ release: toRelease(ctx, started.target), previousReleaseId: started.previousReleaseId, restoredData: started.restoredData, running: true });
      },
    );

    app.get(
      r.storage,
      {
        schema: {
          tags,
          security,
          summary: 'Storage usage counted against the project quota, and the limits',
          params: projectParams,
          response: { 200: storageResponseSchema },
        },
      },
      async (request) => {
        const { project } = requireProjectPermission(ctx, request, request.params.id, 'read');
        return storageOf(project.id);
      },
    );
  };
}
