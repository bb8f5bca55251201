// The replay table: every accepted OIDC token's (issuer, jti) is stored until the token could no
// longer be accepted anyway (exp + clock tolerance), so a captured token cannot be used twice.
import type { FeatureContext } from '../../core/feature-context.js';
import type { Migration } from '../../core/db-migrations.js';

type Ctx = Pick<FeatureContext, 'db' | 'clock'>;

/** Control-database table of used OIDC token ids (scope `oidc`). */
export const oidcMigrations: readonly Migration[] = [
  {
    scope: 'oidc',
    version: 1,
    name: 'used OIDC token ids (replay protection)',
    up(db) {
      db.exec(`
        CREATE TABLE oidc_used_tokens (
          issuer TEXT NOT NULL,
          jti TEXT NOT NULL,
          expires_at INTEGER NOT NULL,
          used_at INTEGER NOT NULL,
          project_id TEXT NOT NULL,
          PRIMARY KEY (issuer, jti)) STRICT;
        CREATE INDEX oidc_used_tokens_expiry ON oidc_used_tokens (expires_at);`);
    },
  },
];

/**
 * Record a token id as used; false when it was used before (a replay). One immediate transaction:
 * expired rows are pruned and the insert is atomic, so two concurrent uses cannot both succeed.
 */
export function consumeJti(ctx: Ctx, input: { issuer: string; jti: string; keepUntil: number; projectId: string }): boolean {
  const now = ctx.clock.now();
  return ctx.db
    .transaction(() => {
      ctx.db.prepare('DELETE FROM oidc_used_tokens WHERE expires_at < ?').run(now);
      const inserted = ctx.db
        .prepare('INSERT INTO oidc_used_tokens (issuer, jti, expires_at, used_at, project_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
        .run(input.issuer, input.jti, input.keepUntil, now, input.projectId);
      return inserted.changes === 1;
    })
    .immediate();
}
