// What a data-restoring rollback would lose, worked out from the release list before asking for the
// confirmation phrase (pure: the command prints these lines, the server still decides).
import type { ReleaseListResponse } from '../src/releases/contract.js';
import { formatBytes } from './output.js';

/** Whether the restore looks possible, and the lines that tell the user what it would do and lose. */
export interface RestorePreview {
  possible: boolean;
  lines: string[];
}

/** Describe `svc rollback <target> --restore-data` for the project `slug` given its release list. */
export function restorePreview(list: ReleaseListResponse, targetId: string, slug: string): RestorePreview {
  const active = list.releases.find((r) => r.id === list.activeReleaseId) ?? list.releases.find((r) => r.status === 'active');
  if (!active) return { possible: false, lines: [`${slug} has no active release, so there is no pre-deploy snapshot to restore.`] };
  if (active.predecessorId !== targetId) {
    return {
      possible: false,
      lines: [`Data can be restored only together with the immediately previous release (${active.predecessorId ?? 'none'}); ${targetId} is not it. Roll back without --restore-data for a code-only rollback.`],
    };
  }
  const snapshotBytes = active.storage.snapshotBytes;
  if (snapshotBytes === null) return { possible: false, lines: [`The active release ${active.id} has no pre-deploy snapshot; only a code-only rollback is possible.`] };
  const since = active.activatedAt ?? active.finishedAt ?? active.createdAt;
  return {
    possible: true,
    lines: [
      `This rolls ${slug} back to release ${targetId} AND replaces its database with the snapshot taken before release ${active.id} went live.`,
      `  Snapshot:  ${formatBytes(snapshotBytes)}, taken during the deploy of ${active.id} (started ${active.createdAt}, live since ${since})`,
      `  Lost:      every database write made since ${since} (the current database is ${formatBytes(list.storage.usage.databaseBytes)}); this cannot be undone`,
    ],
  };
}
