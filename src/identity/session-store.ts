import type { FeatureContext } from '../core/feature-context.js';
import { generateSecret, sha256Hex } from '../core/token-hash.js';
import { cachedStatement } from '../core/control-db.js';

export interface SessionRow {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** Start a browser session; returns the raw cookie value (only its hash is stored) and the CSRF token. */
export function createSession(ctx: FeatureContext, userId: string): { cookieValue: string; csrfToken: string; expiresAt: number } {
  const cookieValue = generateSecret('', 32);
  const csrfToken = generateSecret('', 32);
  const now = ctx.clock.now();
  const expiresAt = now + ctx.config.sessionTtlHours * 3_600_000;
  cachedStatement(ctx.db, 'DELETE FROM sessions WHERE expires_at <= ?').run(now);
  cachedStatement(ctx.db, 'INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(
    sha256Hex(cookieValue),
    userId,
    csrfToken,
    now,
    expiresAt,
  );
  return { cookieValue, csrfToken, expiresAt };
}

/** Look up a live session by its raw cookie value. */
export function findSession(ctx: FeatureContext, cookieValue: string): SessionRow | undefined {
  const row = cachedStatement(ctx.db, 'SELECT * FROM sessions WHERE id_hash = ?').get(sha256Hex(cookieValue)) as SessionRow | undefined;
  return row && row.expires_at > ctx.clock.now() ? row : undefined;
}

/** End a session. */
export function deleteSession(ctx: FeatureContext, idHash: string): void {
  cachedStatement(ctx.db, 'DELETE FROM sessions WHERE id_hash = ?').run(idHash);
}
