// Users and sessions in the app database (`_svc_users`, `_svc_sessions`). The session cookie holds a
// random token; only its SHA-256 is stored. Each session has its own CSRF token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Identity } from '../engine.js';

/** A resolved session: who it is and the CSRF token pages embed. */
export interface Session {
  readonly identity: Identity;
  readonly csrfToken: string;
  readonly expiresAt: number;
}

const STATEMENTS = [
  'CREATE TABLE IF NOT EXISTS "_svc_users" ("id" TEXT PRIMARY KEY NOT NULL, "email" TEXT NOT NULL UNIQUE COLLATE NOCASE, "password_hash" TEXT NOT NULL, "created_at" INTEGER NOT NULL) STRICT',
  'CREATE TABLE IF NOT EXISTS "_svc_sessions" ("token_hash" TEXT PRIMARY KEY NOT NULL, "id" TEXT NOT NULL UNIQUE, "user_id" TEXT NOT NULL, "csrf" TEXT NOT NULL, "created_at" INTEGER NOT NULL, "expires_at" INTEGER NOT NULL) STRICT',
  'CREATE INDEX IF NOT EXISTS "_svc_sessions_user" ON "_svc_sessions" ("user_id")',
];

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compare two strings in constant time (for CSRF tokens). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Users and sessions over one connection. */
export class SessionStore {
  private readonly sqlite: BetterSqlite3.Database;
  private readonly now: () => number;

  constructor(sqlite: BetterSqlite3.Database, now: () => number = Date.now) {
    this.sqlite = sqlite;
    this.now = now;
    for (const sql of STATEMENTS) sqlite.exec(sql);
  }

  /** Create a user; returns null when the email is taken. */
  createUser(email: string, passwordHash: string): { id: string; email: string } | null {
    const id = `user_${randomBytes(10).toString('hex')}`;
    const result = this.sqlite
      .prepare('INSERT OR IGNORE INTO "_svc_users" ("id", "email", "password_hash", "created_at") VALUES (?, ?, ?, ?)')
      .run(id, email, passwordHash, this.now());
    return result.changes === 1 ? { id, email } : null;
  }

  /** A user by email (case-insensitive). */
  findUser(email: string): { id: string; email: string; passwordHash: string } | undefined {
    const row = this.sqlite
      .prepare<[string], { id: string; email: string; password_hash: string }>('SELECT "id", "email", "password_hash" FROM "_svc_users" WHERE "email" = ?')
      .get(email);
    return row && { id: row.id, email: row.email, passwordHash: row.password_hash };
  }

  /** Start a session; returns the raw cookie token (never stored) and the session. */
  createSession(user: { id: string; email: string }, ttlMs: number): { token: string; session: Session } {
    const token = randomBytes(32).toString('base64url');
    const id = randomBytes(12).toString('hex');
    const csrf = randomBytes(32).toString('base64url');
    const now = this.now();
    this.sqlite
      .prepare('INSERT INTO "_svc_sessions" ("token_hash", "id", "user_id", "csrf", "created_at", "expires_at") VALUES (?, ?, ?, ?, ?, ?)')
      .run(sha256(token), id, user.id, csrf, now, now + ttlMs);
    // Expired sessions are swept when new ones start.
    this.sqlite.prepare('DELETE FROM "_svc_sessions" WHERE "expires_at" <= ?').run(now);
    return { token, session: { identity: { userId: user.id, sessionId: id, email: user.email }, csrfToken: csrf, expiresAt: now + ttlMs } };
  }

  /** The live session for a cookie token, or null when unknown or expired. */
  findByToken(token: string): Session | null {
    const row = this.sqlite
      .prepare<[string, number], { id: string; user_id: string; email: string; csrf: string; expires_at: number }>(
        'SELECT s."id", s."user_id", u."email", s."csrf", s."expires_at" FROM "_svc_sessions" s JOIN "_svc_users" u ON u."id" = s."user_id" WHERE s."token_hash" = ? AND s."expires_at" > ?',
      )
      .get(sha256(token), this.now());
    return row ? { identity: { userId: row.user_id, sessionId: row.id, email: row.email }, csrfToken: row.csrf, expiresAt: row.expires_at } : null;
  }

  /** Whether a session id is still signed in (used to revalidate live streams). */
  isActive(sessionId: string): boolean {
    return this.sqlite.prepare('SELECT 1 FROM "_svc_sessions" WHERE "id" = ? AND "expires_at" > ?').get(sessionId, this.now()) !== undefined;
  }

  /** End the session of a cookie token. */
  deleteByToken(token: string): void {
    this.sqlite.prepare('DELETE FROM "_svc_sessions" WHERE "token_hash" = ?').run(sha256(token));
  }
}
