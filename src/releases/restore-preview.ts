// What a data-restoring rollback would lose, worked out from the release list before asking for the
// confirmation phrase. Pure, imports only the byte format, so `svc rollback
// --restore-data` prints these lines and the console's rollback dialog shows the same ones; the server
// still decides.
import { formatBytes } from '../core/format-bytes.js';

/** The part of the release list (GET …/releases) the preview reads; the contract re-exports this module. */
interface PreviewRelease {
  id: string;
  status: string;
  predecessorId: string | null;
  createdAt: string;
  activatedAt: string | null;
  finishedAt: string | null;
  storage: { snapshotBytes: number | null };
}
interface ReleaseListResponse {
  releases: readonly PreviewRelease[];
  activeReleaseId: string | null;
  storage: { usage: { databaseBytes: number } };
}

/** Whether the restore looks possible, and the lines that tell the user what it would do and lose. */
export interface RestorePreview {
  possible: boolean;
  lines: string[];
}

/** Where the project runs, when it is placed on a runner node (its snapshots are kept there). */
export interface PreviewPlacement {
  nodeId: string;
}

/** Whether the preview needs the project's placement: the snapshot is not on the control plane. */
export function previewNeedsPlacement(list: ReleaseListResponse, targetId: string): boolean {
  const active = activeOf(list);
  return active !== undefined && active.predecessorId === targetId && active.storage.snapshotBytes === null;
}

function activeOf(list: ReleaseListResponse): PreviewRelease | undefined {
  return list.releases.find((r) => r.id === list.activeReleaseId) ?? list.releases.find((r) => r.status === 'active');
}

/** Describe `svc rollback <target> --restore-data` for the project `slug` given its release list (and its node, when placed). */
export function restorePreview(list: ReleaseListResponse, targetId: string, slug: string, placement: PreviewPlacement | null = null): RestorePreview {
  const active = activeOf(list);
  if (!active) return { possible: false, lines: [`${slug} has no active release, so there is no pre-deploy snapshot to restore.`] };
  if (active.predecessorId !== targetId) {
    return {
      possible: false,
      lines: [
        `Data can be restored only together with the immediately previous release (${active.predecessorId ?? 'none'}); ${targetId} is not it. Roll back without --restore-data for a code-only rollback.`,
      ],
    };
  }
  const snapshotBytes = active.storage.snapshotBytes;
  const since = active.activatedAt ?? active.finishedAt ?? active.createdAt;
  if (snapshotBytes === null && placement) {
    // A placed project's snapshots stay on its node, which checks the snapshot exists before it stops anything.
    return {
      possible: true,
      lines: [
        `This rolls ${slug} back to release ${targetId} AND replaces its database with the snapshot runner node ${placement.nodeId} took before release ${active.id} went live.`,
        `  Snapshot:  kept on runner node ${placement.nodeId} (taken during the deploy of ${active.id}, live since ${since})`,
        `  Lost:      every database write made since ${since}; this cannot be undone`,
      ],
    };
  }
  if (snapshotBytes === null)
    return { possible: false, lines: [`The active release ${active.id} has no pre-deploy snapshot; only a code-only rollback is possible.`] };
  return {
    possible: true,
    lines: [
      `This rolls ${slug} back to release ${targetId} AND replaces its database with the snapshot taken before release ${active.id} went live.`,
      `  Snapshot:  ${formatBytes(snapshotBytes)}, taken during the deploy of ${active.id} (started ${active.createdAt}, live since ${since})`,
      `  Lost:      every database write made since ${since} (the current database is ${formatBytes(list.storage.usage.databaseBytes)}); this cannot be undone`,
    ],
  };
}
