// The unprivileged uid each project's apps run under when svc runs as root: allocated once, in order,
// never reused, so files a project leaves behind can never become another project's.
import { DEFAULT_SANDBOX_UID_BASE } from '../../runner/runner-settings.js';
import type { FeatureContext } from '../core/feature-context.js';

/** First uid handed to a project, unless SVC_SANDBOX_UID_BASE says otherwise. */
export const DEFAULT_PROJECT_UID_BASE = DEFAULT_SANDBOX_UID_BASE;

/** The project's uid, allocating the next free one in one transaction on first use. */
export function projectUid(ctx: Pick<FeatureContext, 'db' | 'clock'>, projectId: string, base: number = DEFAULT_PROJECT_UID_BASE): number {
  return ctx.db
    .transaction(() => {
      const existing = ctx.db.prepare('SELECT uid FROM project_uids WHERE project_id = ?').get(projectId) as { uid: number } | undefined;
      if (existing) return existing.uid;
      const top = ctx.db.prepare('SELECT max(uid) AS top FROM project_uids').get() as { top: number | null };
      const uid = Math.max(base, (top.top ?? base - 1) + 1);
      ctx.db.prepare('INSERT INTO project_uids (project_id, uid, created_at) VALUES (?, ?, ?)').run(projectId, uid, ctx.clock.now());
      return uid;
    })
    .immediate();
}
