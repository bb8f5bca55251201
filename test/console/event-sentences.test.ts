// The console's audit sentences (web/src/lib/event-sentences.ts): one for every kind the server
// emits, with the metadata the server writes, links to the page of what they name, and a fallback
// for a kind this console does not know yet.
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/contract.js';
import { auditKinds, type AuditKind } from '../../src/audit/kinds.js';
import { describeEvent, sentenceText, type SentenceContext, type SentencePart } from '../../web/src/lib/event-sentences.js';
import { formatRelative } from '../../web/src/lib/format.js';

const ana = { type: 'user' as const, id: 'usr_1', name: 'Ana' };
const context: SentenceContext = { projectPath: (id) => (id === 'prj_1' ? '/projects/shop' : null) };

function event(kind: string, metadata: Record<string, unknown>, actor: AuditEvent['actor'] = ana, projectId: string | null = 'prj_1'): AuditEvent {
  return { id: `evt_${kind}`, kind, organizationId: 'org_1', projectId, actor, metadata, createdAt: '2026-03-01T12:00:00.000Z' };
}

// Metadata as the server writes it (src/**: appendAudit callers), and the sentence each one reads as.
const cases: Record<AuditKind, [Record<string, unknown>, string, AuditEvent['actor']?]> = {
  'account.register': [{ userId: 'usr_1', mode: 'bootstrap' }, 'Ana created an account'],
  'organization.create': [{ organizationId: 'org_2', name: 'Acme', slug: 'acme' }, 'Ana created the organization acme'],
  'member.invite': [{ invitationId: 'inv_1', email: 'bo@example.com', role: 'developer' }, 'Ana invited bo@example.com as developer'],
  'member.join': [{ userId: 'usr_2', role: 'viewer', invitationId: 'inv_1' }, 'Ana joined as viewer'],
  'member.role': [{ userId: 'usr_2', from: 'viewer', to: 'admin' }, 'Ana changed a member’s role from viewer to admin'],
  'member.remove': [{ userId: 'usr_2', role: 'viewer' }, 'Ana removed a member (viewer)'],
  'device.approve': [{ clientName: 'svc CLI on laptop', deviceId: 'dev_1' }, 'Ana approved a CLI sign-in from “svc CLI on laptop”'],
  'device.deny': [{ clientName: 'svc CLI', deviceId: 'dev_1' }, 'Ana denied a CLI sign-in from “svc CLI”'],
  'token.create': [
    { tokenId: 'tok_1', name: 'laptop', via: 'device', projectId: null, permissions: ['read'] },
    'Ana created the access token “laptop” by signing in with the CLI',
  ],
  'token.revoke': [{ tokenId: 'tok_1', name: 'ci' }, 'Ana revoked the access token “ci”'],
  'project.create': [{ projectId: 'prj_1', slug: 'shop', name: 'Shop', organizationId: 'org_1' }, 'Ana created the project shop'],
  'project.delete': [
    { projectId: 'prj_1', slug: 'shop', name: 'Shop', revokedTokens: 0, activeReleaseId: null },
    'Ana deleted the project shop with its data, releases, backups and domains',
  ],
  'release.create': [{ releaseId: 'rel_12', digest: 'ab', gzipBytes: 10, bundleBytes: 2048, fileCount: 3 }, 'Ana uploaded release rel_12 (2.0 KiB)'],
  'release.activate': [
    { releaseId: 'rel_12', digest: 'ab', previousReleaseId: 'rel_11', snapshotBytes: 10 },
    'Ana deployed release rel_12, replacing release rel_11',
  ],
  'release.fail': [
    { releaseId: 'rel_13', step: 'health', code: 'SVC_HEALTH_CHECK_FAILED', reason: '/healthz did not answer 2xx', activeReleaseId: 'rel_12' },
    'Deploy of release rel_13 failed at health: /healthz did not answer 2xx SVC_HEALTH_CHECK_FAILED; release rel_12 kept serving',
  ],
  'release.delete': [{ releaseId: 'rel_10', rollbackLoss: false, snapshotRemoved: false, bundleBytes: 10 }, 'Ana removed the files of release rel_10'],
  'rollback.start': [{ releaseId: 'rel_11' }, 'Ana started a rollback to release rel_11'],
  'rollback.complete': [
    { releaseId: 'rel_11', fromReleaseId: 'rel_12', restoreData: false },
    'Ana rolled back to release rel_11 from release rel_12, data unchanged',
  ],
  'rollback.restore_data': [
    { releaseId: 'rel_11', fromReleaseId: 'rel_12', restoreData: true, snapshotBytes: 4096 },
    'Ana rolled back to release rel_11 from release rel_12, data restored from the snapshot taken before the deploy (later writes were lost)',
  ],
  'rollback.fail': [
    { releaseId: 'rel_11', restoreData: false, code: 'SVC_HEALTH_CHECK_FAILED', reason: 'no 2xx' },
    'Ana’s rollback to release rel_11 failed: no 2xx SVC_HEALTH_CHECK_FAILED',
  ],
  'lock.recovered': [
    { reason: 'holder process is gone', operation: 'deploy', pid: 42, acquiredAt: 1, recoveredBy: 'boot' },
    'svc took over the project lock left by a stopped process (it was running a deploy)',
    { type: 'system', id: 'svc-platform', name: 'boot' },
  ],
  'backup.create': [
    { backupId: 'bak_1', kind: 'scheduled', sizeBytes: 1024, databaseBytes: 4096 },
    'svc took a scheduled backup (1.0 KiB)',
    { type: 'system', id: 'svc', name: null },
  ],
  'backup.restore': [{ backupId: 'bak_1', backupCreatedAt: 1, restartedReleaseId: 'rel_12', restartError: null }, 'Ana restored the database from a backup'],
  'backup.schedule': [{ enabled: true, intervalMinutes: 60, keep: 24, maxAgeDays: 7 }, 'Ana scheduled backups every 60 minutes, keeping 24'],
  'backup.failed': [{ kind: 'manual', code: 'SVC_DISK_FULL', reason: 'no space left' }, 'A backup failed: no space left SVC_DISK_FULL'],
  'backup.overdue': [{ intervalMinutes: 30, lastSuccessAt: null, nextDueAt: 1 }, 'A scheduled backup is overdue (every 30 minutes)'],
  'backup.delete': [{ backupId: 'bak_1', reason: 'retention' }, 'svc removed a backup (retention)', { type: 'system', id: 'svc', name: null }],
  'secret.set': [{ name: 'API_KEY', created: true }, 'Ana added the secret API_KEY'],
  'secret.delete': [{ name: 'API_KEY' }, 'Ana deleted the secret API_KEY'],
  'domain.add': [{ domain: 'shop.example.com' }, 'Ana added the domain shop.example.com'],
  'domain.remove': [{ domain: 'shop.example.com' }, 'Ana removed the domain shop.example.com'],
  'github.link': [
    { repository: 'acme/shop', repositoryId: 1, branch: 'main', installationId: 2, rollbackPermission: 'write' },
    'Ana linked the repository acme/shop (branch main)',
  ],
  'github.unlink': [{ repository: 'acme/shop', branch: 'main' }, 'Ana unlinked the repository acme/shop'],
  'github.command': [
    { command: 'rollback', releaseId: 'rel_11', outcome: 'rolled_back', ok: true, repository: 'acme/shop', pullRequest: 7, commentId: 9 },
    'octocat (GitHub) commented /svc rollback on pull request #7: done rolled_back',
    { type: 'github', id: 'github:1', name: 'octocat' },
  ],
  'github.rerun': [
    { sha: 'abc1234def', outcome: 'queued', releaseId: null },
    'octocat (GitHub) re-ran the release check of commit abc1234: queued',
    { type: 'github', id: 'github:1', name: 'octocat' },
  ],
  'recovery.enable': [{ effective: 'next-release-or-restart' }, 'Ana turned on point-in-time recovery (from the next release or restart)'],
  'recovery.rotate': [{ releaseId: 'rel_12' }, 'Release rel_12 began a new recovery epoch', { type: 'system', id: 'svc', name: null }],
  'recovery.restore_create': [{ restoreId: 'rst_1', epoch: 'e1', sequence: 3, sizeBytes: 2048 }, 'Ana wrote a point-in-time restore (2.0 KiB)'],
  'recovery.restore': [
    { restoreId: 'rst_1', epoch: 'e1', sequence: 3, commitTime: '2026-03-01T11:00:00Z', restartedReleaseId: 'rel_12' },
    'Ana replaced the database with a point-in-time restore as of 2026-03-01T11:00:00Z',
  ],
  'node.token': [{ expiresAt: '2026-03-02T00:00:00Z' }, 'Ana created a runner-node registration token'],
  'node.enroll': [{ nodeId: 'node-a', region: 'eu', capacity: 4, concurrency: 2 }, 'Runner node node-a enrolled in eu'],
  'node.place': [{ nodeId: 'node-a', region: 'eu', previousNodeId: null }, 'Ana placed the project on runner node node-a'],
  'node.generation': [{ generation: 3, state: 'running', releaseId: 'rel_12', nodeId: 'node-a' }, 'Ana asked runner node node-a to run release rel_12'],
  'preview.create': [{ number: 7, slug: 'pr-7--shop', dataSource: 'empty' }, 'Preview of pull request #7 created at pr-7--shop'],
  'preview.delete': [{ slug: 'pr-7--shop', reason: 'pull request merged' }, 'Ana removed the preview pr-7--shop with its data (pull request merged)'],
  'preview.settings': [{ data: 'production' }, 'Ana made new previews copy production data'],
};

describe('event sentences', () => {
  it('covers every audit kind the server emits', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(auditKinds).sort());
  });

  it.each(Object.entries(cases))('%s reads as a sentence', (kind, [metadata, sentence, actor]) => {
    const parts = describeEvent(event(kind, metadata, actor), context);
    expect(sentenceText(parts)).toBe(sentence);
    // Never the raw kind or an "[object Object]" from metadata.
    expect(sentenceText(parts)).not.toContain(kind);
    expect(sentenceText(parts)).not.toContain('[object');
  });

  it('links releases, backups, domains, secrets and tokens to their pages', () => {
    const hrefs = (parts: SentencePart[]) => parts.flatMap((p) => (typeof p !== 'string' && p.href ? [p.href] : []));
    expect(hrefs(describeEvent(event('rollback.restore_data', cases['rollback.restore_data'][0]), context))).toEqual([
      '/projects/shop/releases',
      '/projects/shop/releases',
    ]);
    expect(hrefs(describeEvent(event('domain.add', { domain: 'a.example' }), context))).toEqual(['/projects/shop/domains']);
    expect(hrefs(describeEvent(event('backup.create', cases['backup.create'][0]), context))).toEqual(['/projects/shop/backups']);
    expect(hrefs(describeEvent(event('secret.set', { name: 'X', created: false }), context))).toEqual(['/projects/shop/secrets']);
    expect(hrefs(describeEvent(event('token.revoke', { name: 'ci' }, ana, null), context))).toEqual(['/tokens']);
    expect(hrefs(describeEvent(event('project.create', cases['project.create'][0]), context))).toEqual(['/projects/shop']);
  });

  it('does not link into a deleted or unknown project', () => {
    const parts = describeEvent(event('release.activate', { releaseId: 'rel_1', previousReleaseId: null }, ana, 'prj_gone'), context);
    expect(parts.some((p) => typeof p !== 'string' && 'href' in p && p.href)).toBe(false);
    expect(sentenceText(parts)).toBe('Ana deployed release rel_1');
  });

  it('reads missing metadata without inventing values', () => {
    expect(sentenceText(describeEvent(event('release.fail', {}), context))).toBe(
      'Deploy of a release failed at an unknown step: no reason recorded SVC_INTERNAL; nothing is serving',
    );
    expect(sentenceText(describeEvent(event('token.create', {}, { type: 'token', id: 'tok_9', name: null }), context))).toBe(
      'tok_9 created the access token “unnamed”',
    );
  });

  it('falls back to the actor and kind for a kind it does not know', () => {
    expect(sentenceText(describeEvent(event('future.thing', { a: 1 }), context))).toBe('Ana: future.thing');
  });
});

describe('relative times', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it.each([
    ['2026-03-01T11:59:50Z', 'a few seconds ago'],
    ['2026-03-01T12:00:10Z', 'in a few seconds'],
    ['2026-03-01T11:59:00Z', '1 minute ago'],
    ['2026-03-01T11:57:00Z', '3 minutes ago'],
    ['2026-03-01T11:00:00Z', '1 hour ago'],
    ['2026-02-28T12:00:00Z', '24 hours ago'],
    ['2026-02-24T12:00:00Z', '5 days ago'],
    ['2026-03-01T14:00:00Z', 'in 2 hours'],
  ])('%s → %s', (iso, text) => {
    expect(formatRelative(iso, now)).toBe(text);
  });
});
