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
  /**
   * The token whose request created this one; NULL for browser-session and device-login tokens.
   * Optional only for principals shaped as a token outside this store (OIDC uploads): stored rows always have it.
   */
  parent_id?: string | null;
}

/**
 * What the chain of parents says about a token, read together with it: whether any ancestor is
 * revoked (or missing) and the earliest ancestor expiry. Null for a token without a parent.
 */
export interface TokenAncestry {
  revoked: boolean;
  expiresAt: number;
}

/**
 * Pure: the lifecycle state of a token at `now`. With its ancestry, a token whose parent (or any
 * earlier ancestor) is revoked or expired is too, even if the cascade never wrote that to its row.
 */
export function tokenStatus(row: Pick<TokenRow, 'revoked_at' | 'expires_at'>, now: number, ancestry: TokenAncestry | null = null): TokenInfo['status'] {
  if (row.revoked_at !== null || ancestry?.revoked) return 'revoked';
  const expiresAt = ancestry === null ? row.expires_at : Math.min(row.expires_at, ancestry.expiresAt);
  return expiresAt <= now ? 'expired' : 'active';
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
    parentId: row.parent_id ?? null,
    permissions: tokenPermissions(row),
    status: tokenStatus(row, now),
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
    lastUsedAt: row.last_used_at === null ? null : isoTime(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : isoTime(row.revoked_at),
  };
}

export interface NewAccessToken {
  userId: string;
  name: string;
  projectId: string | null;
  permissions: readonly Permission[];
  /** Epoch ms; default the configured token lifetime from now. */
  expiresAt?: number;
  /** The token that authenticated the creating request, if any. */
  parent?: Pick<TokenRow, 'id' | 'expires_at'> | null;
}

/**
 * Mint a token: 256 CSPRNG bits, returned raw exactly once; only the SHA-256 is stored. A child
 * never expires after its parent, whatever the caller computed, so a token's own stored expiry
 * already includes every ancestor's (the ancestry read on each request only backs that up).
 */
export function insertAccessToken(ctx: FeatureContext, input: NewAccessToken): { row: TokenRow; accessToken: string } {
  const accessToken = generateSecret(TOKEN_PREFIX, 32);
  const now = ctx.clock.now();
  const wanted = input.expiresAt ?? now + ctx.config.tokenTtlDays * 86_400_000;
  const row: TokenRow = {
    id: ctx.ids('tok'),
    token_hash: sha256Hex(accessToken),
    user_id: input.userId,
    name: input.name,
    project_id: input.projectId,
    permissions: JSON.stringify([...new Set(input.permissions)].sort()),
    created_at: now,
    expires_at: input.parent ? Math.min(wanted, input.parent.expires_at) : wanted,
    last_used_at: null,
    revoked_at: null,
    parent_id: input.parent?.id ?? null,
  };
  cachedStatement(
    ctx.db,
    'INSERT INTO access_tokens (id, token_hash, user_id, name, project_id, permissions, created_at, expires_at, parent_id) VALUES (@id, @token_hash, @user_id, @name, @project_id, @permissions, @created_at, @expires_at, @parent_id)',
  ).run(row);
  return { row, accessToken };
}

/** Encodes "an ancestor is revoked or missing" in the ancestry column (real expiry times are positive). */
const ANCESTOR_REVOKED = -1;

// One query for the bearer hot path: the token's columns, then its user's (NULL when the user is gone),
// then its ancestry. Revocation cascades and child expiry is capped at creation, so the ancestry is
// defence in depth; it walks parents by primary key and costs nothing for tokens without a parent
// (the CASE skips it). The walk ends: parent_id is set once at insert to an older row, so no cycles.
// A chain that does not end in a root (some parent row missing) fails closed, like a revocation.
// Raw rows (arrays) skip building a keyed object per row in the driver; the order below is the contract.
const TOKEN_WITH_USER_SQL = `SELECT t.id, t.token_hash, t.user_id, t.name, t.project_id, t.permissions, t.created_at, t.expires_at, t.last_used_at, t.revoked_at, t.parent_id,
  u.id, u.email, u.name, u.password_hash, u.personal_org_id, u.created_at,
  CASE WHEN t.parent_id IS NULL THEN NULL ELSE (
    WITH RECURSIVE up(parent_id, revoked_at, expires_at) AS (
      SELECT a.parent_id, a.revoked_at, a.expires_at FROM access_tokens a WHERE a.id = t.parent_id
      UNION ALL SELECT a.parent_id, a.revoked_at, a.expires_at FROM access_tokens a JOIN up ON a.id = up.parent_id)
    SELECT CASE WHEN COUNT(revoked_at) > 0 OR COUNT(*) = COUNT(parent_id) THEN ${ANCESTOR_REVOKED} ELSE MIN(expires_at) END FROM up) END
  FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`;

type TokenWithUserRaw = [
  string,
  string,
  string,
  string,
  string | null,
  string,
  number,
  number,
  number | null,
  number | null,
  string | null,
  string | null,
  string,
  string | null,
  string,
  string | null,
  number,
  number | null,
];

/** Decode the ancestry column (NULL: the token has no parent). */
function toAncestry(value: number | null): TokenAncestry | null {
  if (value === null) return null;
  return value === ANCESTOR_REVOKED ? { revoked: true, expiresAt: value } : { revoked: false, expiresAt: value };
}

/**
 * A token by its raw value together with its user (undefined user: the account is gone) and its
 * ancestry (pass it to tokenStatus), in one lookup by hash.
 */
export function findTokenWithUser(
  ctx: FeatureContext,
  raw: string,
): { token: TokenRow; user: UserRow | undefined; ancestry: TokenAncestry | null } | undefined {
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
    parent_id: row[10],
  };
  const ancestry = toAncestry(row[17]);
  if (row[11] === null) return { token, user: undefined, ancestry };
  return { token, user: { id: row[11], email: row[12], name: row[13], password_hash: row[14], personal_org_id: row[15], created_at: row[16] }, ancestry };
}

/** A token by id. */
export function getToken(ctx: FeatureContext, id: string): TokenRow | undefined {
  return cachedStatement(ctx.db, 'SELECT * FROM access_tokens WHERE id = ?').get(id) as TokenRow | undefined;
}

/** Tokens of a user, newest first. */
export function listTokens(ctx: FeatureContext, userId: string): TokenRow[] {
  return cachedStatement(ctx.db, 'SELECT * FROM access_tokens WHERE user_id = ? ORDER BY created_at DESC, id DESC').all(userId) as TokenRow[];
}

/** Record use, at most once a minute per token to keep reads cheap. */
export function touchToken(ctx: FeatureContext, row: TokenRow): void {
  const now = ctx.clock.now();
  if (row.last_used_at === null || now - row.last_used_at > 60_000)
    cachedStatement(ctx.db, 'UPDATE access_tokens SET last_used_at = ? WHERE id = ?').run(now, row.id);
}
