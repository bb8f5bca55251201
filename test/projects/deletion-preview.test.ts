// What deleting a project erases, as `svc project delete` prints it and the console's dialog shows it.
import { describe, expect, it } from 'vitest';
import { deletionPreview, deletionPreviewLines } from '../../src/projects/deletion-preview.js';

describe('deletionPreview', () => {
  it('counts what the caller could read', () => {
    const preview = deletionPreview('shop', { databaseBytes: 16_384, releases: 3, backups: 1, domains: 2 });
    expect(preview.summary).toBe('This permanently deletes the project shop: its app stops and everything svc keeps for it is erased.');
    expect(preview.lost).toEqual([
      { label: 'Database', detail: 'the database (16.0 KiB)' },
      { label: 'Releases', detail: '3 releases with their rollback snapshots and recovery points' },
      { label: 'Backups', detail: '1 backup kept on this platform' },
      { label: 'Domains', detail: '2 custom domains, which stop routing at once' },
      { label: 'Also', detail: 'secrets, logs, metrics and project tokens' },
    ]);
    expect(preview.untouched).toContain('Off-host copies');
  });

  it('names what it could not count without inventing a number', () => {
    const lost = deletionPreview('shop').lost.map((l) => l.detail);
    expect(lost.slice(0, 4)).toEqual([
      'the database',
      'releases with their rollback snapshots and recovery points',
      'backups kept on this platform',
      'custom domains, which stop routing at once',
    ]);
  });

  it('prints aligned lines for a terminal', () => {
    expect(deletionPreviewLines(deletionPreview('shop', { releases: 1 }))).toEqual([
      'This permanently deletes the project shop: its app stops and everything svc keeps for it is erased.',
      '  Database:  the database',
      '  Releases:  1 release with its rollback snapshot and recovery points',
      '  Backups:   backups kept on this platform',
      '  Domains:   custom domains, which stop routing at once',
      '  Also:      secrets, logs, metrics and project tokens',
      'Off-host copies (downloaded backups, external databases, edge certificates) are not erased. The audit history keeps a record of the deletion.',
    ]);
  });
});
