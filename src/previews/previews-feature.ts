// Preview environments: one project of its own per open pull request (`pr-<n>--<slug>`), created when
// the pull request opens, fed by the Action's uploads of its head commit through the ordinary release
// pipeline, stopped while idle and started again by the next request, removed when it closes.
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { ProjectLocks } from '../core/project-lock.js';
import { appendAudit, type AuditInput } from '../audit/append-audit.js';
import { findProject, insertProject, type ProjectRow } from '../projects/index.js';
import { activeReleaseRow, type ReleaseObserver } from '../releases/index.js';
import { previewSlug, type PreviewDataSource } from './contract.js';
import { decideOpen, idlePreviews, type IdleCandidate } from './preview-decisions.js';
import type { PreviewIdentity, PreviewLifecycle, PreviewOpenOutcome, PullRequestInput } from './preview-lifecycle.js';
import { readPreviewSettings, type PreviewSettings } from './preview-settings.js';
import {
  countPreviews,
  findPreviewRow,
  insertPreviewRow,
  listAllPreviewRows,
  listPreviewRows,
  previewRowOf,
  readDataSource,
  recordPreviewCandidate,
  recordPreviewRequests,
  recordPreviewServing,
  setPreviewAsleep,
  updatePreviewHead,
  type PreviewRow,
} from './preview-store.js';

/** The ingress seam: asleep routes hold their requests and ask for a wake instead of answering 503. */
export interface PreviewRouting {
  setAsleep(projectId: string, asleep: boolean): void;
  onWake(listener: (projectId: string) => void): () => void;
}

export interface PreviewsDeps {
  locks: ProjectLocks;
  /** The releases feature's app control (stop takes the project out of the ingress first; start routes once healthy). */
  apps: { stop(projectId: string): Promise<void>; start(projectId: string, releaseId: string): Promise<void> };
  /** The release running for a project, if any. */
  running(projectId: string): { releaseId: string } | null;
  /** Remove a project with its files, rows and app (the projects feature's eraseProject). */
  erase(projectId: string, audit: { actor: AuditInput['actor']; metadata: Record<string, unknown> }): Promise<void>;
  routing: PreviewRouting;
  /** Finished requests (both ingresses), for the idle clock. */
  onRequest(observer: (record: { projectId: string; endedAt?: number }) => void): () => void;
  /** Copy production's database into a new preview (only when the project opted in). */
  copyProductionData(parent: ProjectRow, preview: ProjectRow): Promise<void>;
  /** The app URL of a slug (null when the platform's origin is unknown). */
  appUrl(slug: string): string | null;
  settings?: Partial<PreviewSettings>;
}

export interface PreviewsFeature {
  lifecycle: PreviewLifecycle;
  /** Refuses preview uploads of any commit but the pull request's head; remembers which commit serves. */
  observer: ReleaseObserver;
  settings: PreviewSettings;
  /** The preview project of a pull request for an upload, or SVC_PREVIEW_NOT_FOUND. */
  uploadTarget(parentProjectId: string, number: number): PreviewRow;
  /** Remove one preview (the pull request stays open; its next push creates it again). */
  remove(row: PreviewRow, actor: AuditInput['actor'], reason: string): Promise<void>;
  /** Remove every preview of a project (the project is being deleted). */
  removeAll(parentProjectId: string): Promise<void>;
  /** Whose secrets a project's apps get: a preview gets its production project's preview scope. */
  secretsOf(projectId: string): { projectId: string; scope: 'production' | 'preview' };
  /** Start a sleeping preview now (what a request to it does). */
  wake(projectId: string): Promise<void>;
  /** Stop previews idle past the setting as of `now` (default the clock; the periodic sweep calls it). */
  sweep(now?: number): Promise<string[]>;
  start(): void;
  close(): Promise<void>;
}

const SYSTEM = { type: 'system' as const, id: 'svc-previews', name: 'previews' };

/** Build the previews feature (the sweep runs once start() is called). */
export function createPreviews(ctx: FeatureContext, deps: PreviewsDeps): PreviewsFeature {
  const settings: PreviewSettings = { ...readPreviewSettings(ctx.config.env), ...deps.settings };
  const lastRequests = new Map<string, number>();
  // Preview project ids, so the per-request hook never queries the database.
  const previewIds = new Set(listAllPreviewRows(ctx).map((row) => row.project_id));
  const waking = new Map<string, Promise<void>>();
  const startedAt = ctx.clock.now();
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const unsubscribe: (() => void)[] = [];

  const identity = (row: PreviewRow): PreviewIdentity => {
    const project = findProject(ctx, row.project_id);
    return {
      previewProjectId: row.project_id,
      parentProjectId: row.parent_project_id,
      number: row.number,
      url: deps.appUrl(project?.slug ?? previewSlug('', row.number)) ?? '',
      headSha: row.head_sha,
    };
  };

  function createPreview(parent: ProjectRow, input: PullRequestInput, dataSource: PreviewDataSource): ProjectRow {
    const slug = previewSlug(parent.slug, input.number);
    const created = ctx.db
      .transaction(() => {
        if (findProject(ctx, slug)) throw new SvcError('SVC_PROJECT_SLUG_TAKEN', `Slug "${slug}" is taken.`);
        const project = insertProject(ctx, {
          slug,
          name: `${parent.name} · PR #${input.number}`,
          organizationId: parent.organization_id,
          createdBy: parent.created_by,
          previewOf: parent.id,
        });
        const now = ctx.clock.now();
        insertPreviewRow(ctx, {
          project_id: project.id,
          parent_project_id: parent.id,
          number: input.number,
          title: input.title,
          author: input.author,
          head_ref: input.headRef,
          head_sha: input.headSha,
          data_source: dataSource,
          asleep: 0,
          last_request_at: null,
          candidate_release_id: null,
          candidate_sha: null,
          serving_sha: null,
          created_at: now,
          updated_at: now,
        });
        appendAudit(ctx, {
          kind: 'preview.create',
          organizationId: parent.organization_id,
          projectId: parent.id,
          actor: SYSTEM,
          metadata: { previewProjectId: project.id, slug, number: input.number, headSha: input.headSha, dataSource },
        });
        return project;
      })
      .immediate();
    previewIds.add(created.id);
    return created;
  }

  async function open(input: PullRequestInput): Promise<PreviewOpenOutcome> {
    const parent = findProject(ctx, input.parentProjectId);
    if (!parent) throw new SvcError('SVC_PROJECT_NOT_FOUND');
    const existing = findPreviewRow(ctx, parent.id, input.number);
    const decision = decideOpen({ fork: input.fork, exists: existing !== undefined, live: countPreviews(ctx, parent.id), limit: settings.limit });
    if (decision === 'fork') return { kind: 'fork' };
    if (decision === 'limit') return { kind: 'limit', limit: settings.limit, live: countPreviews(ctx, parent.id) };
    if (decision === 'update') {
      updatePreviewHead(ctx, existing!.project_id, input);
      return { kind: 'ready', previewProjectId: existing!.project_id, url: identity(existing!).url, created: false };
    }
    const dataSource = readDataSource(ctx, parent.id);
    const project = createPreview(parent, input, dataSource);
    if (dataSource === 'production') {
      try {
        await deps.copyProductionData(parent, project);
      } catch (error) {
        await deps.erase(project.id, { actor: SYSTEM, metadata: { reason: 'copying production data failed' } }).catch(() => undefined);
        throw error;
      }
    }
    return { kind: 'ready', previewProjectId: project.id, url: deps.appUrl(project.slug) ?? '', created: true };
  }

  async function remove(row: PreviewRow, actor: AuditInput['actor'], reason: string): Promise<void> {
    lastRequests.delete(row.project_id);
    await deps.erase(row.project_id, { actor, metadata: { previewOf: row.parent_project_id, number: row.number, reason } });
    previewIds.delete(row.project_id);
  }

  async function wake(projectId: string): Promise<void> {
    const pending = waking.get(projectId);
    if (pending) return pending;
    const run = deps.locks
      .withLock(
        projectId,
        'preview-wake',
        async () => {
          const row = previewRowOf(ctx, projectId);
          const active = row ? activeReleaseRow(ctx, projectId) : undefined;
          if (!row || !active) return;
          if (deps.running(projectId)?.releaseId !== active.id || row.asleep === 1) await deps.apps.start(projectId, active.id);
          setPreviewAsleep(ctx, projectId, false);
          lastRequests.set(projectId, ctx.clock.now());
        },
        { waitMs: 60_000 },
      )
      .catch((error: unknown) => ctx.logger.error({ err: error, projectId }, 'waking a preview failed (held requests get 503)'))
      .finally(() => waking.delete(projectId));
    waking.set(projectId, run);
    return run;
  }

  async function sleep(projectId: string): Promise<boolean> {
    return deps.locks
      .withLock(projectId, 'preview-sleep', async () => {
        const row = previewRowOf(ctx, projectId);
        if (!row || row.asleep === 1 || !deps.running(projectId)) return false;
        // Asleep first: a request arriving while the app stops is held and wakes it, never answered 503.
        deps.routing.setAsleep(projectId, true);
        setPreviewAsleep(ctx, projectId, true);
        await deps.apps.stop(projectId);
        return true;
      })
      .catch((error: unknown) => {
        if (!(error instanceof SvcError && error.code === 'SVC_PROJECT_LOCKED')) ctx.logger.error({ err: error, projectId }, 'stopping an idle preview failed');
        return false;
      });
  }

  async function sweep(now = ctx.clock.now()): Promise<string[]> {
    if (lastRequests.size > 0) {
      recordPreviewRequests(ctx, lastRequests);
    }
    const candidates: IdleCandidate[] = [];
    for (const row of listAllPreviewRows(ctx)) {
      if (row.asleep === 1 || !deps.running(row.project_id)) continue;
      const activatedAt = activeReleaseRow(ctx, row.project_id)?.activated_at ?? 0;
      const last = Math.max(lastRequests.get(row.project_id) ?? 0, row.last_request_at ?? 0, activatedAt, startedAt);
      candidates.push({ projectId: row.project_id, lastActivityAt: last });
    }
    const stopped: string[] = [];
    for (const projectId of idlePreviews(candidates, now, settings.idleStopMs)) {
      if (await sleep(projectId)) stopped.push(projectId);
    }
    return stopped;
  }

  const lifecycle: PreviewLifecycle = {
    open,
    async close({ parentProjectId, number, merged }) {
      const row = findPreviewRow(ctx, parentProjectId, number);
      if (!row) return { removed: false };
      await remove(row, SYSTEM, merged ? 'pull request merged' : 'pull request closed');
      return { removed: true };
    },
    previewOf(projectId) {
      const row = previewRowOf(ctx, projectId);
      return row ? identity(row) : null;
    },
    find(parentProjectId, number) {
      const row = findPreviewRow(ctx, parentProjectId, number);
      return row ? identity(row) : null;
    },
  };

  const observer: ReleaseObserver = {
    admit(projectId, source) {
      const row = previewRowOf(ctx, projectId);
      if (row && source.commitSha !== row.head_sha) {
        throw new SvcError(
          'SVC_PREVIEW_COMMIT_SUPERSEDED',
          `Commit ${source.commitSha.slice(0, 7)} is not the head of pull request #${row.number} (${row.head_sha.slice(0, 7)}); it is not released.`,
        );
      }
    },
    onCandidate(release, source) {
      if (previewRowOf(ctx, release.projectId)) recordPreviewCandidate(ctx, release.projectId, release.id, source?.commitSha ?? null);
    },
    onOutcome(release) {
      if (activeReleaseRow(ctx, release.projectId)?.id === release.id && previewRowOf(ctx, release.projectId)) {
        recordPreviewServing(ctx, release.projectId, release.id);
        deps.routing.setAsleep(release.projectId, false);
      }
    },
  };

  return {
    lifecycle,
    observer,
    settings,
    uploadTarget(parentProjectId, number) {
      const row = findPreviewRow(ctx, parentProjectId, number);
      if (!row) throw new SvcError('SVC_PREVIEW_NOT_FOUND', `Pull request #${number} has no preview (yet).`);
      return row;
    },
    remove,
    async removeAll(parentProjectId) {
      for (const row of listPreviewRows(ctx, parentProjectId)) await remove(row, SYSTEM, 'project deleted');
    },
    secretsOf(projectId) {
      if (!previewIds.has(projectId)) return { projectId, scope: 'production' };
      const row = previewRowOf(ctx, projectId);
      return row ? { projectId: row.parent_project_id, scope: 'preview' } : { projectId, scope: 'production' };
    },
    wake,
    sweep,
    start() {
      // A restart started every active release again (boot recovery): those previews are awake.
      for (const row of listAllPreviewRows(ctx)) {
        if (row.asleep === 1 && deps.running(row.project_id)) setPreviewAsleep(ctx, row.project_id, false);
        else if (row.asleep === 1) deps.routing.setAsleep(row.project_id, true);
      }
      unsubscribe.push(deps.routing.onWake((projectId) => void (previewIds.has(projectId) ? wake(projectId) : undefined)));
      unsubscribe.push(
        deps.onRequest((record) => {
          if (previewIds.has(record.projectId)) lastRequests.set(record.projectId, record.endedAt ?? ctx.clock.now());
        }),
      );
      if (settings.idleStopMs > 0) {
        const every = Math.max(1000, Math.min(60_000, Math.floor(settings.idleStopMs / 4)));
        timer = setInterval(() => {
          sweeping ??= sweep().finally(() => (sweeping = null));
        }, every);
        timer.unref();
      }
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      for (const off of unsubscribe.splice(0)) off();
      await sweeping;
      await Promise.all([...waking.values()]);
      if (lastRequests.size > 0 && ctx.db.open) recordPreviewRequests(ctx, lastRequests);
    },
  };
}
