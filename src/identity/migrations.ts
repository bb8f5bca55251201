import type { Migration } from '../core/db-migrations.js';

/**
 * Identity tables: users, organizations, memberships, sessions, tokens, device codes, invitations.
 * Version 2 records which token created a token (`parent_id`, NULL for tokens from a browser
 * session or device login) so revoking a token can revoke everything minted from it; existing
 * tokens keep NULL, they were all created before tokens could be traced.
 */
export const identityMigrations: readonly Migration[] = [
  {
    scope: 'identity',
    version: 1,
    name: 'accounts, organizations, sessions, tokens, device codes, invitations',
    up(db) {
      db.exec(`
        CREATE TABLE users (
          id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, password_hash TEXT NOT NULL,
          personal_org_id TEXT, created_at INTEGER NOT NULL) STRICT;
        CREATE TABLE organizations (
          id TEXT PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
          personal INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL) STRICT;
        CREATE TABLE memberships (
          organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
          user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
          created_at INTEGER NOT NULL, PRIMARY KEY (organization_id, user_id)) STRICT;
        CREATE INDEX memberships_user ON memberships (user_id);
        CREATE TABLE sessions (
          id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          csrf_token TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) STRICT;
        CREATE TABLE access_tokens (
          id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
          user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, name TEXT NOT NULL,
          project_id TEXT, permissions TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          last_used_at INTEGER, revoked_at INTEGER) STRICT;
        CREATE INDEX access_tokens_user ON access_tokens (user_id);
        CREATE INDEX access_tokens_project ON access_tokens (project_id);
        CREATE TABLE device_codes (
          id TEXT PRIMARY KEY, device_code_hash TEXT NOT NULL UNIQUE, user_code TEXT NOT NULL UNIQUE,
          client_name TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
          interval_s INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          last_poll_at INTEGER, user_id TEXT REFERENCES users(id) ON DELETE CASCADE, token_id TEXT, decided_at INTEGER) STRICT;
        CREATE TABLE invitations (
          id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
          organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
          email TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
          invited_by TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          accepted_at INTEGER, accepted_by TEXT) STRICT;
      `);
    },
  },
  {
    scope: 'identity',
    version: 2,
    name: 'parent token of tokens created by a token',
    up(db) {
      // ON DELETE CASCADE: a child row never outlives its parent's row (e.g. when the user is deleted).
      db.exec(`
        ALTER TABLE access_tokens ADD COLUMN parent_id TEXT REFERENCES access_tokens(id) ON DELETE CASCADE;
        CREATE INDEX access_tokens_parent ON access_tokens (parent_id);
      `);
    },
  },
];
