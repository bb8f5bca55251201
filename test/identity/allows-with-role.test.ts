// allowsWithRole and authorizeWithRole (used with a role read earlier in the same request) must decide
// exactly like authorize (which rereads the role itself) for every role, permission, credential and scope.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig } from '../../src/core/config.js';
import { openControlDb, type ControlDb } from '../../src/core/control-db.js';
import { applyMigrations } from '../../src/core/db-migrations.js';
import type { FeatureContext } from '../../src/core/feature-context.js';
import { randomId } from '../../src/core/ids.js';
import { createLogger } from '../../src/core/logger.js';
import { permissions, type Permission, type Role } from '../../src/identity/contract.js';
import {
  allowsWithRole,
  authorize,
  authorizeWithRole,
  identityMigrations,
  isAuthorized,
  type AccessRequest,
  type Principal,
} from '../../src/identity/index.js';
import type { TokenRow } from '../../src/identity/token-store.js';
import type { UserRow } from '../../src/identity/user-store.js';

describe('allowsWithRole / authorizeWithRole', () => {
  let dir: string;
  let db: ControlDb;
  let ctx: FeatureContext;
  const user: UserRow = { id: 'usr_1', email: 'a@example.com', name: null, password_hash: 'x', personal_org_id: null, created_at: 0 };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-allows-'));
    db = openControlDb(join(dir, 'control.db'));
    applyMigrations(db, identityMigrations);
    db.prepare('INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, NULL, ?, 0)').run(user.id, user.email, 'x');
    db.prepare('INSERT INTO organizations (id, slug, name, created_at) VALUES (?, ?, ?, 0)').run('org_1', 'one', 'One');
    ctx = { db, clock: manualClock(0), ids: randomId, config: testPlatformConfig({ dataDir: dir }), logger: createLogger({ level: 'silent' }) };
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = (projectId: string | null, perms: Permission[]): Principal => ({
    kind: 'token',
    user,
    permissions: perms,
    token: {
      id: 'tok_1',
      token_hash: 'h',
      user_id: user.id,
      name: 't',
      project_id: projectId,
      permissions: JSON.stringify(perms),
      created_at: 0,
      expires_at: 1,
      last_used_at: null,
      revoked_at: null,
    } satisfies TokenRow,
  });
  const principals: Principal[] = [
    { kind: 'session', user, sessionIdHash: 's', csrfToken: 'c' },
    token(null, ['read', 'deploy']),
    token(null, [...permissions]),
    token('prj_a', ['read', 'audit']),
  ];
  const accesses: AccessRequest[] = permissions.flatMap((permission) => [
    { permission, organizationId: 'org_1', projectId: 'prj_a' },
    { permission, organizationId: 'org_1', projectId: 'prj_b' },
    { permission, organizationId: 'org_1', projectId: null },
    { permission, organizationId: 'org_1', projectId: 'prj_a', accountWide: true },
  ]);

  const outcome = (fn: () => Role): string => {
    try {
      return `role ${fn()}`;
    } catch (error) {
      return `error ${(error as { code?: string }).code}`;
    }
  };

  it('agrees with authorize for every case', () => {
    let cases = 0;
    for (const role of [null, 'owner', 'admin', 'developer', 'viewer'] as (Role | null)[]) {
      db.prepare('DELETE FROM memberships').run();
      if (role) db.prepare('INSERT INTO memberships (organization_id, user_id, role, created_at) VALUES (?, ?, ?, 0)').run('org_1', user.id, role);
      for (const principal of principals) {
        for (const access of accesses) {
          const label = `${role} ${principal.kind} ${JSON.stringify(access)}`;
          expect(allowsWithRole(principal, access, role), label).toBe(isAuthorized(ctx, principal, access));
          expect(
            outcome(() => authorizeWithRole(principal, access, role)),
            label,
          ).toEqual(outcome(() => authorize(ctx, principal, access)));
          cases++;
        }
      }
    }
    expect(cases).toBe(5 * principals.length * accesses.length);
  });
});
