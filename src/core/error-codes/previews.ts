import { defineCodes } from './define.js';

/** Preview environments of pull requests (src/previews). */
export const previewsCodes = defineCodes({
  SVC_PREVIEW_NOT_FOUND: {
    status: 404,
    retryable: true,
    summary: 'The pull request has no preview: it is not open against the linked branch, comes from a fork, was over the limit, or was closed.',
    hint: 'Open (or push to) a pull request against the linked branch; the svc GitHub App creates its preview. `svc previews` lists them.',
  },
  SVC_PREVIEW_COMMIT_SUPERSEDED: {
    status: 409,
    retryable: false,
    summary: "A preview upload named a commit that is not the pull request's head commit: a newer push replaced it, so it is never released.",
    hint: 'Nothing to do: the workflow run of the newest push deploys the preview. Build the head commit (github.event.pull_request.head.sha).',
  },
  SVC_PREVIEW_DATA_COPY_FAILED: {
    status: 500,
    retryable: true,
    summary: "Copying production's database into a new preview failed; the preview was not created.",
    hint: 'Check that production has an active release with a database on this host (placed or swarm projects cannot be copied), or set `svc previews settings --data empty`.',
  },
  SVC_PREVIEW_NOT_PREVIEW: {
    status: 409,
    retryable: false,
    summary: 'The project is itself a preview; previews, preview secrets and preview settings belong to the production project.',
    hint: 'Use the production project (the slug after `pr-<n>--`).',
  },
});
