// HTTP contract of release cleanup (`svc releases delete`), re-exported by contract.ts; zod only.
import { z } from 'zod';

/** DELETE `{ confirm, allowRollbackLoss? }` on the release path removes its artifact (files), keeping its metadata. */
export const deleteReleaseBodySchema = z.object({
  confirm: z.string().max(300).default('').describe('exactly "delete-release <project-slug> <release-id>"'),
  allowRollbackLoss: z.boolean().default(false).describe('needed to remove the predecessor of the active release (also removes the data-restore snapshot)'),
});
export const deleteReleaseResponseSchema = z.object({
  releaseId: z.string(),
  status: z.enum(['inactive', 'failed']).describe('unchanged: metadata and audit history are kept'),
  artifactRetained: z.literal(false),
  freedBytes: z.number().int().describe('uncompressed release files plus a removed snapshot'),
  removedSnapshot: z.boolean().describe('true when the active release lost its data-restore snapshot (rollback loss)'),
});

/** The exact phrase that confirms deleting a release artifact. */
export function deleteReleaseConfirmation(projectSlug: string, releaseId: string): string {
  return `delete-release ${projectSlug} ${releaseId}`;
}
