// Progress of each PR comment command (by comment id), so a retried delivery never runs a rollback
// twice or posts a second reply: received → executing → (outcome stored) → done.
import type { FeatureContext } from '../core/feature-context.js';

export interface CommandOutcome {
  ok: boolean;
  /** Reply comment body. */
  reply: string;
  /** Stable reason (SVC_* code or a github reason) for audit and tests. */
  code: string;
}

export interface CommandRow {
  comment_id: number;
  state: 'received' | 'executing' | 'done';
  outcome: string | null;
  reply_id: number | null;
}

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

/** The row of a comment, created as `received` the first time. */
export function claimCommand(ctx: Ctx, commentId: number): CommandRow {
  const now = ctx.clock.now();
  ctx.db
    .prepare("INSERT INTO github_commands (comment_id, state, created_at, updated_at) VALUES (?, 'received', ?, ?) ON CONFLICT DO NOTHING")
    .run(commentId, now, now);
  return ctx.db.prepare('SELECT comment_id, state, outcome, reply_id FROM github_commands WHERE comment_id = ?').get(commentId) as CommandRow;
}

export function setCommandState(ctx: Ctx, commentId: number, state: CommandRow['state'], outcome?: CommandOutcome): void {
  ctx.db
    .prepare('UPDATE github_commands SET state = ?, outcome = COALESCE(?, outcome), updated_at = ? WHERE comment_id = ?')
    .run(state, outcome ? JSON.stringify(outcome) : null, ctx.clock.now(), commentId);
}

export function setCommandReply(ctx: Ctx, commentId: number, replyId: number): void {
  ctx.db.prepare('UPDATE github_commands SET reply_id = ?, updated_at = ? WHERE comment_id = ?').run(replyId, ctx.clock.now(), commentId);
}
