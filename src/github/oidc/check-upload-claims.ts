// Pure: may a verified OIDC token upload this commit to this project? The token's repository and ref
// must be the project's linked repository and branch, and its sha the commit the upload names.
import { SvcError } from '../../core/errors.js';
import type { GithubOidcClaims } from './verify-oidc-token.js';

/** What OIDC authorization needs to know about a project's GitHub link. */
export interface OidcProjectLink {
  repositoryId: number;
  branch: string;
  /** The user the upload acts for (who linked the project); their current role still applies. */
  linkedBy: string;
}

/** Find the link of a project (null = not linked). */
export type ProjectLinkLookup = (projectId: string) => OidcProjectLink | null;

/** The commit and repository an upload declares in its x-svc-commit-sha / x-svc-repository-id headers. */
export interface DeclaredSource {
  commitSha: string | undefined;
  repositoryId: string | undefined;
}

/** Throw SVC_OIDC_PROJECT_NOT_LINKED (no link, or another repository) or SVC_OIDC_CLAIMS_MISMATCH (ref, sha). */
export function checkUploadClaims(
  claims: Pick<GithubOidcClaims, 'repository_id' | 'ref' | 'sha'>,
  link: OidcProjectLink | null,
  declared: DeclaredSource,
): void {
  // Unlinked and linked-elsewhere read the same, so any GitHub repository's token cannot probe projects.
  if (!link || claims.repository_id !== String(link.repositoryId)) {
    throw new SvcError('SVC_OIDC_PROJECT_NOT_LINKED', `This project is not linked to repository ${claims.repository_id}.`);
  }
  const expectedRef = `refs/heads/${link.branch}`;
  if (claims.ref !== expectedRef) {
    const pull = PULL_REF.exec(claims.ref);
    const previewNote = pull ? ` A pull request's workflow deploys its preview only (POST /api/projects/:id/previews/${pull[1]}/releases).` : '';
    throw new SvcError('SVC_OIDC_CLAIMS_MISMATCH', `The token is for ${claims.ref}; the project deploys ${expectedRef}.${previewNote}`);
  }
  if (declared.commitSha === undefined) throw new SvcError('SVC_OIDC_CLAIMS_MISMATCH', 'OIDC uploads must send the commit in x-svc-commit-sha.');
  if (declared.commitSha !== claims.sha)
    throw new SvcError('SVC_OIDC_CLAIMS_MISMATCH', `The upload names commit ${declared.commitSha}; the token was issued for ${claims.sha}.`);
  if (declared.repositoryId !== undefined && declared.repositoryId !== claims.repository_id) {
    throw new SvcError('SVC_OIDC_CLAIMS_MISMATCH', `The upload names repository ${declared.repositoryId}; the token was issued for ${claims.repository_id}.`);
  }
}

const PULL_REF = /^refs\/pull\/([1-9][0-9]*)\/(?:merge|head)$/;

/**
 * Throw unless a verified token may upload to pull request `number`'s preview: the token's repository is
 * the project's linked one and its ref is that pull request's (`refs/pull/<n>/merge` or `/head`). Its sha is
 * the merge commit GitHub made, so the uploaded commit is checked against the pull request's head instead.
 */
export function checkPreviewUploadClaims(claims: Pick<GithubOidcClaims, 'repository_id' | 'ref'>, link: OidcProjectLink | null, number: number): void {
  if (!link || claims.repository_id !== String(link.repositoryId)) {
    throw new SvcError('SVC_OIDC_PROJECT_NOT_LINKED', `This project is not linked to repository ${claims.repository_id}.`);
  }
  const pull = PULL_REF.exec(claims.ref);
  if (!pull || Number(pull[1]) !== number) {
    throw new SvcError(
      'SVC_OIDC_CLAIMS_MISMATCH',
      `The token is for ${claims.ref}; a preview of pull request #${number} needs a token of refs/pull/${number}/merge.`,
    );
  }
}
