// Link a project to a repository branch in the control database through the GitHub App's link
// store (src/github/link-store.ts), as `PUT /api/projects/:id/github` does after GitHub confirmed the
// installation (which needs github.com, so tests write the link directly).
import { openControlDb } from '../../src/core/control-db.js';
import { saveLink } from '../../src/github/link-store.js';

/** Link `projectId` to `repositoryId`@`branch` as `userId` in the control DB at `dbPath`. */
export function linkProject(dbPath: string, input: { projectId: string; repositoryId: number; branch: string; userId: string; fullName?: string }): void {
  const db = openControlDb(dbPath);
  try {
    saveLink(
      { db, clock: { now: () => Date.now() } },
      {
        project_id: input.projectId,
        repository_id: input.repositoryId,
        full_name: input.fullName ?? 'octo/shop',
        branch: input.branch,
        installation_id: 1,
        rollback_permission: 'write',
        environment: 'production',
        created_by: input.userId,
      },
    );
  } finally {
    db.close();
  }
}
