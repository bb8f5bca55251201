// What the GitHub integration asks of previews (pull request opened, pushed to, closed) and what it
// reads back (is this project a preview, of which pull request). Implemented by the previews feature;
// src/github gets it from the composition root and never touches the previews tables.

/** A pull request as the webhook describes it (only what previews need). */
export interface PullRequestInput {
  /** The linked (production) project the pull request's base branch deploys. */
  parentProjectId: string;
  number: number;
  title: string;
  author: string | null;
  headRef: string;
  headSha: string;
  /** Head repository differs from the base repository: never deployed automatically. */
  fork: boolean;
}

/** What opening (or pushing to, or reopening) a pull request did. */
export type PreviewOpenOutcome =
  /** The preview exists (created now or before) and waits for the Action's upload of `headSha`. */
  | { kind: 'ready'; previewProjectId: string; url: string; created: boolean }
  /** The project already has `limit` live previews: nothing was created. */
  | { kind: 'limit'; limit: number; live: number }
  /** A fork's pull request: nothing was created. */
  | { kind: 'fork' };

/** A preview project's pull request. */
export interface PreviewIdentity {
  previewProjectId: string;
  parentProjectId: string;
  number: number;
  url: string;
  headSha: string;
}

export interface PreviewLifecycle {
  /** opened / reopened / synchronize / edited: create the preview if needed, record the new head commit. */
  open(input: PullRequestInput): Promise<PreviewOpenOutcome>;
  /** closed (merged or not): stop the preview, delete its data, release files and host. No-op when there is none. */
  close(input: { parentProjectId: string; number: number; merged: boolean }): Promise<{ removed: boolean }>;
  /** The pull request a preview project belongs to, or null for any other project. */
  previewOf(projectId: string): PreviewIdentity | null;
  /** The preview project of a pull request, or null. */
  find(parentProjectId: string, number: number): PreviewIdentity | null;
}
