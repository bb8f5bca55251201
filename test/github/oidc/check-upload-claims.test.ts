// Pure checks of an OIDC upload against the project link and the declared commit; the jti replay
// table on real SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/core/clock.js';
import { openControlDb } from '../../../src/core/control-db.js';
import { applyMigrations } from '../../../src/core/db-migrations.js';
import { isSvcError } from '../../../src/core/errors.js';
import { checkPreviewUploadClaims, checkUploadClaims } from '../../../src/github/oidc/check-upload-claims.js';
import { consumeJti, oidcMigrations } from '../../../src/github/oidc/jti-store.js';

const SHA = 'b'.repeat(40);
const link = { repositoryId: 4242, branch: 'main', linkedBy: 'usr_1' };
const claims = { repository_id: '4242', ref: 'refs/heads/main', sha: SHA };

function codeOf(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
}

describe('pull request tokens', () => {
  const pull = { repository_id: '4242', ref: 'refs/pull/7/merge', sha: 'c'.repeat(40) };

  it('never deploy production, and the refusal points at the preview route', () => {
    let message = '';
    try {
      checkUploadClaims(pull, link, { commitSha: pull.sha, repositoryId: '4242' });
    } catch (error) {
      if (!isSvcError(error, 'SVC_OIDC_CLAIMS_MISMATCH')) throw error;
      message = error.message;
    }
    expect(message).toContain('/previews/7/releases');
  });

  it("deploy only their own pull request's preview, of the linked repository", () => {
    expect(codeOf(() => checkPreviewUploadClaims(pull, link, 7))).toBe('ok');
    expect(codeOf(() => checkPreviewUploadClaims({ ...pull, ref: 'refs/pull/7/head' }, link, 7))).toBe('ok');
    expect(codeOf(() => checkPreviewUploadClaims(pull, link, 8))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    expect(codeOf(() => checkPreviewUploadClaims({ ...pull, ref: 'refs/heads/main' }, link, 7))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    expect(codeOf(() => checkPreviewUploadClaims({ ...pull, ref: 'refs/pull/07/merge' }, link, 7))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    expect(codeOf(() => checkPreviewUploadClaims({ ...pull, repository_id: '999' }, link, 7))).toBe('SVC_OIDC_PROJECT_NOT_LINKED');
    expect(codeOf(() => checkPreviewUploadClaims(pull, null, 7))).toBe('SVC_OIDC_PROJECT_NOT_LINKED');
  });
});

describe('checkUploadClaims', () => {
  it('accepts the linked repository, branch and the declared commit', () => {
    expect(codeOf(() => checkUploadClaims(claims, link, { commitSha: SHA, repositoryId: '4242' }))).toBe('ok');
    expect(codeOf(() => checkUploadClaims(claims, link, { commitSha: SHA, repositoryId: undefined }))).toBe('ok');
  });

  it('refuses unlinked projects and other repositories alike', () => {
    expect(codeOf(() => checkUploadClaims(claims, null, { commitSha: SHA, repositoryId: undefined }))).toBe('SVC_OIDC_PROJECT_NOT_LINKED');
    expect(codeOf(() => checkUploadClaims({ ...claims, repository_id: '999' }, link, { commitSha: SHA, repositoryId: undefined }))).toBe(
      'SVC_OIDC_PROJECT_NOT_LINKED',
    );
  });

  it('refuses another branch, a tag, a pull request ref, another commit or a missing commit header', () => {
    for (const ref of ['refs/heads/dev', 'refs/tags/main', 'refs/pull/1/merge', 'refs/heads/main2']) {
      expect(codeOf(() => checkUploadClaims({ ...claims, ref }, link, { commitSha: SHA, repositoryId: undefined }))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    }
    expect(codeOf(() => checkUploadClaims(claims, link, { commitSha: 'c'.repeat(40), repositoryId: undefined }))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    expect(codeOf(() => checkUploadClaims(claims, link, { commitSha: undefined, repositoryId: undefined }))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
    expect(codeOf(() => checkUploadClaims(claims, link, { commitSha: SHA, repositoryId: '1' }))).toBe('SVC_OIDC_CLAIMS_MISMATCH');
  });
});

describe('consumeJti', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('accepts a jti once, rejects its replay until it expires, and prunes expired rows', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-oidc-jti-'));
    const db = openControlDb(join(dir, 'control.db'));
    try {
      const clock = manualClock(1_000_000);
      applyMigrations(db, oidcMigrations, () => clock.now());
      const ctx = { db, clock };
      const use = (jti: string, keepUntil = 1_060_000) => consumeJti(ctx, { issuer: 'https://iss', jti, keepUntil, projectId: 'prj_1' });
      expect(use('j1')).toBe(true);
      expect(use('j1')).toBe(false);
      expect(consumeJti(ctx, { issuer: 'https://other', jti: 'j1', keepUntil: 1_060_000, projectId: 'prj_1' })).toBe(true);
      expect(use('j2')).toBe(true);
      clock.set(1_070_000);
      expect(use('j3', 1_200_000)).toBe(true);
      const left = db.prepare('SELECT jti FROM oidc_used_tokens ORDER BY jti').all() as { jti: string }[];
      expect(left.map((r) => r.jti)).toEqual(['j3']);
    } finally {
      db.close();
    }
  });
});
