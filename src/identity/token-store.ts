import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { generateSecret, sha256Hex } from '../core/token-hash.js';
import { TOKEN_PREFIX, type Permission, type TokenInfo } from './contract.js';
import type { UserRow } from './user-store.js';
import { cachedStatement } from '../core/control-db.js';

export interface TokenRow {
  id: string;
  token_hash: string;
  user_id: string;
  name: string;
  project_id: string | null;
  permissions: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Pure: the lifecycle state of a token at `now`. */
export function tokenStatus(row: Pick<TokenRow, 'revoked_at' | 'expires_at'>, now: number): TokenInfo['status'] {
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'active';
}

/** Permissions stored with a token. */
export function tokenPermissions(row: TokenRow): Permission[] {
  return JSON.parse(row.permissions) as Permission[];
}

/** Wire shape of a token (never includes the raw value or its hash). */
export function toTokenInfo(row: TokenRow, now: number): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    projectId: row.project_id,
    permissions: tokenPermissions(row),
    status: tokenStatus(row, now),
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : isoTime(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : isoTime(row.revoked_at),
  };
}

/** Mint a token: 256 CSPRNG bits, returned raw exactly once; only the SHA-256 is stored. */
export function insertAccessToken(
  ctx: FeatureContext,
  input: { userId: string; name: string; projectId: string | null; permissions: readonly Permission[]; expiresInDays?: number },
): { row: TokenRow; accessToken: string } {
  const accessToken = generateSecret(TOKEN_PREFIX, 32);
  const now = ctx.clock.now();
  const row: TokenRow = {
    id: ctx.ids('tok'),
    token_hash: sha256Hex(accessToken),
    user_id: input.userId,
    name: input.name,
    project_id: input.projectId,
    permissions: JSON.stringify([...new Set(input.permissions)].sort()),
    created_at: now,
    expires_at: now + (input.expiresInDays ?? ctx.config.tokenTtlDays) * 86_400_000,
    last_used_at: null,
    revoked_at: null,
  };
  cachedStatement(ctx.db, 'INSERT INTO access_tokens (id, token_hash, user_id, name, project_id, permissions, created_at, expires_at) VALUES (@id, @token_hash, @user_id, @name, @project_id, @permissions, @created_at, @expires_at)')
    .run(row);
  return { row, accessToken };
}

/** Find a token by its raw value (lookup by hash: the raw value is never stored). */
export function findTokenByRaw(ctx: FeatureContext, raw: string): TokenRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM access_tokens WHERE token_hash = ?').get(sha256Hex(raw)) as TokenRow | undefined;
}

// One query for the bearer hot path: the token's columns, then its user's (NULL when the user is gone).
// Raw rows (arrays) skip building a keyed object per row in the driver; the order below is the contract.
const TOKEN_WITH_USER_SQL =
  'SELECT t.id, t.token_hash, t.user_id, t.name, t.project_id, t.permissions, t.created_at, t.expires_at, t.last_used_at, t.revoked_at, ' +
  'u.id, u.email, u.name, u.password_hash, u.personal_org_id, u.created_at FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?';

type TokenWithUserRaw = [string, string, string, string, string | null, string, number, number, number | null, number | null, string | null, string, string | null, string, string | null, number];

/** A token by its raw value together with its user (undefined user: the account is gone), in one lookup by hash. */
export function findTokenWithUser(ctx: FeatureContext, raw: string): { token: TokenRow; user: UserRow | undefined } | undefined {
  const row = cachedStatement(ctx.db, TOKEN_WITH_USER_SQL, { raw: true }).get(sha256Hex(raw)) as TokenWithUserRaw | undefined;
  if (!row) return undefined;
  const token: TokenRow = {
    id: row[0],
    token_hash: row[1],
    user_id: row[2],
    name: row[3],
    project_id: row[4],
    permissions: row[5],
    created_at: row[6],
    expires_at: row[7],
    last_used_at: row[8],
    revoked_at: row[9],
  };
  if (row[10] === null) return { token, user: undefined };
  return { token, user: { id: row[10], email: row[11], name: row[12], password_hash: row[13], personal_org_id: row[14], created_at: row[15] } };
}

/** A token by id. */
export function getToken(ctx: FeatureContext, id: string): TokenRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM access_tokens WHERE id = ?').get(id) as TokenRow | undefined;
}

/** Tokens of a user, newest first. */
export function listTokens(ctx: FeatureContext, userId: string): TokenRow[] {
  return cachedStatement(ctx.db, 'SELECT * FROM access_tokens WHERE user_id = ? ORDER BY created_at DESC, id DESC').all(userId) as TokenRow[];
}

/** Mark a token revoked (idempotent). */
export function revokeTokenRow(ctx: FeatureContext, id: string): void {
  cachedStatement(ctx.db, 'UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(ctx.clock.now(), id);
}

/** Revoke every live token scoped to a project (used by site deletion). */
export function revokeProjectTokens(ctx: FeatureContext, projectId: string): number {
  return cachedStatement(ctx.db, 'UPDATE access_tokens SET revoked_at = ? WHERE project_id = ? AND revoked_at IS NULL').run(ctx.clock.now(), projectId).changes;
}

/** Record use, at most once a minute per token to keep reads cheap. */
export function touchToken(ctx: FeatureContext, row: TokenRow): void {
  const now = ctx.clock.now();
  if (row.last_used_at === null || now - row.last_used_at > 60_000) cachedStatement(ctx.db, 'UPDATE access_tokens SET last_used_at = ? WHERE id = ?').run(now, row.id);
}
