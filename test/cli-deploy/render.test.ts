// Pure rendering and parsing of the release commands: the restore preview, the releases table,
// log lines and --since.
import { describe, expect, it } from 'vitest';
import { resolveSince, formatLogEntry } from '../../cli/commands/logs.js';
import { releaseRows } from '../../cli/commands/releases.js';
import { previewNeedsPlacement, restorePreview } from '../../src/releases/contract.js';
import type { Release, ReleaseListResponse } from '../../src/releases/contract.js';

function release(id: string, extra: Partial<Release> = {}): Release {
  return {
    id,
    projectId: 'prj_1',
    status: 'inactive',
    step: null,
    digest: `${id.slice(-1)}`.repeat(64),
    createdAt: '2030-01-01T10:00:00.000Z',
    activatedAt: '2030-01-01T10:00:05.000Z',
    finishedAt: '2030-01-01T10:00:05.000Z',
    failure: null,
    predecessorId: null,
    artifactRetained: true,
    storage: { artifactBytes: 3000, bundleBytes: 9000, fileCount: 2, snapshotBytes: null },
    config: { entry: 'dist/server.mjs', healthPath: '/healthz', healthTimeoutMs: 1000, databasePath: 'app.db' },
    createdBy: { type: 'token', id: 'tok_1', name: null },
    ...extra,
  };
}

function list(releases: Release[]): ReleaseListResponse {
  return {
    releases,
    activeReleaseId: releases.find((r) => r.status === 'active')?.id ?? null,
    storage: {
      usage: { bundleBytes: 18_000, databaseBytes: 40_960, snapshotBytes: 20_480, totalBytes: 79_440, retainedArtifacts: releases.length },
      limits: { maxRetainedArtifacts: 10, maxStorageBytes: 1_000_000_000 },
    },
  };
}

const r1 = release('rel_1');
const r3 = release('rel_3', {
  status: 'active',
  predecessorId: 'rel_1',
  createdAt: '2030-01-02T09:00:00.000Z',
  activatedAt: '2030-01-02T09:00:03.000Z',
  storage: { ...r1.storage, snapshotBytes: 20_480 },
});

describe('restorePreview', () => {
  it('names the snapshot, its time and size, and what is lost', () => {
    const preview = restorePreview(list([r3, r1]), 'rel_1', 'notes');
    expect(preview.possible).toBe(true);
    const text = preview.lines.join('\n');
    expect(text).toContain('back to release rel_1');
    expect(text).toContain('snapshot taken before release rel_3');
    expect(text).toContain('20.0 KiB');
    expect(text).toContain('started 2030-01-02T09:00:00.000Z');
    expect(text).toContain('every database write made since 2030-01-02T09:00:03.000Z');
    expect(text).toContain('current database is 40.0 KiB');
  });

  it('says when a restore is not possible', () => {
    expect(restorePreview(list([r3, r1, release('rel_0')]), 'rel_0', 'notes')).toMatchObject({ possible: false });
    expect(restorePreview(list([{ ...r3, storage: r1.storage }, r1]), 'rel_1', 'notes').lines[0]).toContain('no pre-deploy snapshot');
    expect(restorePreview(list([r1]), 'rel_1', 'notes').lines[0]).toContain('no active release');
  });

  it("on a runner node the snapshot is the node's: possible, and the node is named", () => {
    const placed = list([{ ...r3, storage: r1.storage }, r1]);
    expect(previewNeedsPlacement(placed, 'rel_1')).toBe(true);
    expect(previewNeedsPlacement(list([r3, r1]), 'rel_1')).toBe(false);
    expect(previewNeedsPlacement(placed, 'rel_0')).toBe(false);
    const preview = restorePreview(placed, 'rel_1', 'notes', { nodeId: 'node-a' });
    expect(preview.possible).toBe(true);
    const text = preview.lines.join('\n');
    expect(text).toContain('runner node node-a took before release rel_3');
    expect(text).toContain('every database write made since 2030-01-02T09:00:03.000Z');
    // Not the predecessor: refused whatever the placement.
    expect(restorePreview(list([r3, r1, release('rel_0')]), 'rel_0', 'notes', { nodeId: 'node-a' }).possible).toBe(false);
  });
});

describe('releaseRows', () => {
  it('shows status, short digest, storage, failure reason and usage', () => {
    const failed = release('rel_2', { status: 'failed', failure: { step: 'migrate', code: 'SVC_MIGRATION_FAILED', message: '0002_broken.sql: syntax error' } });
    const rows = releaseRows(list([r3, failed, { ...r1, artifactRetained: false }]));
    expect(rows[0]).toMatch(/^ID\s+STATUS\s+CREATED\s+DIGEST\s+ARTIFACT\s+SNAPSHOT\s+REASON$/);
    expect(rows[1]).toMatch(/^rel_3\s+active\s+2030-01-02 09:00:00Z\s+3{12}\s+2\.9 KiB \(8\.8 KiB files\)\s+20\.0 KiB\s+-$/);
    expect(rows[2]).toContain('SVC_MIGRATION_FAILED at migrate: 0002_broken.sql: syntax error');
    expect(rows[3]).toContain('removed');
    expect(rows.at(-1)).toBe('Storage: 77.6 KiB of 953.7 MiB (releases 17.6 KiB, database 40.0 KiB, snapshots 20.0 KiB); 3 of 10 artifacts kept');
    expect(releaseRows(list([]))).toEqual(['No releases yet. Deploy one with `svc deploy`.']);
  });
});

describe('logs helpers', () => {
  const now = Date.parse('2030-01-01T12:00:00.000Z');
  it('turns durations into ISO times and passes absolute times through', () => {
    expect(resolveSince('10m', now)).toBe('2030-01-01T11:50:00.000Z');
    expect(resolveSince('2h', now)).toBe('2030-01-01T10:00:00.000Z');
    expect(resolveSince('1d', now)).toBe('2029-12-31T12:00:00.000Z');
    expect(resolveSince('2030-01-01T00:00:00Z', now)).toBe('2030-01-01T00:00:00Z');
    expect(resolveSince('1893456000000', now)).toBe('1893456000000');
    expect(resolveSince(undefined, now)).toBeUndefined();
    expect(() => resolveSince('yesterday-ish', now)).toThrow(/--since/);
  });

  it('prints one line per entry without terminal control characters', () => {
    expect(formatLogEntry({ time: '2030-01-01T00:00:00.000Z', stream: 'stderr', releaseId: 'rel_1', line: 'boom \u001b[31mred\u001b[0m' })).toBe(
      '2030-01-01T00:00:00.000Z rel_1 stderr | boom [31mred[0m',
    );
  });
});
