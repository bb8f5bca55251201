import type { FeatureContext } from '../core/feature-context.js';
import { cachedStatement } from '../core/control-db.js';
import type { TokenRow } from './token-store.js';

/** A token that a revocation turned from live to revoked. */
export type RevokedToken = Pick<TokenRow, 'id' | 'name' | 'project_id'>;

// The token and everything minted from it, parents before children (depth), each once.
const TREE_SQL = `WITH RECURSIVE tree(id, depth) AS (
    SELECT id, 0 FROM access_tokens WHERE id = ?
    UNION ALL SELECT a.id, tree.depth + 1 FROM access_tokens a JOIN tree ON a.parent_id = tree.id)
  SELECT t.id, t.name, t.project_id, t.revoked_at FROM tree JOIN access_tokens t ON t.id = tree.id ORDER BY tree.depth, t.created_at, t.id`;

const REVOKE_SQL = 'UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL';

/**
 * Revoke a token and all its descendants in one transaction (a savepoint when the caller already
 * holds one), all with the same time. Walks the whole tree even below an already revoked token,
 * so a second revoke repairs a tree whose cascade was ever skipped. Returns the tokens this call
 * revoked (empty when all were revoked already), parents first.
 */
export function revokeTokenTree(ctx: FeatureContext, id: string): RevokedToken[] {
  return ctx.db.transaction(() => {
    const now = ctx.clock.now();
    const tree = cachedStatement(ctx.db, TREE_SQL).all(id) as (RevokedToken & { revoked_at: number | null })[];
    const revoked: RevokedToken[] = [];
    for (const token of tree) {
      if (token.revoked_at !== null) continue;
      cachedStatement(ctx.db, REVOKE_SQL).run(now, token.id);
      revoked.push({ id: token.id, name: token.name, project_id: token.project_id });
    }
    return revoked;
  })();
}

// Every token scoped to the project and everything minted from them (UNION: each row once).
const PROJECT_TREE_REVOKE_SQL = `WITH RECURSIVE tree(id) AS (
    SELECT id FROM access_tokens WHERE project_id = ?
    UNION SELECT a.id FROM access_tokens a JOIN tree ON a.parent_id = tree.id)
  UPDATE access_tokens SET revoked_at = ? WHERE id IN (SELECT id FROM tree) AND revoked_at IS NULL`;

/**
 * Revoke every live token scoped to a project and their descendants (used by project deletion).
 * Children of a scoped token are scoped to the same project, so the cascade is a safeguard here.
 * Returns how many tokens were revoked.
 */
export function revokeProjectTokens(ctx: FeatureContext, projectId: string): number {
  return cachedStatement(ctx.db, PROJECT_TREE_REVOKE_SQL).run(projectId, ctx.clock.now()).changes;
}
