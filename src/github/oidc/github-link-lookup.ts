// The ProjectLinkLookup backed by the GitHub App's link store (src/github/link-store.ts).
import type { FeatureContext } from '../../core/feature-context.js';
import { findLink } from '../link-store.js';
import type { ProjectLinkLookup } from './check-upload-claims.js';

/** Look up a project's linked repository and branch in the github_links table. */
export function githubLinkLookup(ctx: Pick<FeatureContext, 'db' | 'clock'>): ProjectLinkLookup {
  return (projectId) => {
    const link = findLink(ctx, projectId);
    return link ? { repositoryId: link.repository_id, branch: link.branch, linkedBy: link.created_by } : null;
  };
}
