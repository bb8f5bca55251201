import { defineCodes } from './define.js';

/** Codes of the GitHub App integration (src/github): webhooks, links, commit ordering, PR commands. */
export const githubCodes = defineCodes({
  SVC_GITHUB_NOT_CONFIGURED: {
    status: 503,
    retryable: false,
    summary: 'The GitHub App is not configured on this control plane (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET).',
    hint: 'Create the app from app.yml and set its credentials; see docs/github.md.',
  },
  SVC_GITHUB_CONFIG_INVALID: {
    status: 500,
    retryable: false,
    configuration: 'svc-platform',
    summary: 'A GitHub App setting (APP_ID, private key, GHE_HOST, GHE_PROTOCOL, SVC_GITHUB_*) is invalid.',
    hint: 'Fix the setting named in the message (see docs/github.md), or unset APP_ID to run without the GitHub App.',
  },
  SVC_GITHUB_SIGNATURE_INVALID: {
    status: 401,
    retryable: false,
    summary: 'The webhook delivery has no valid X-Hub-Signature-256 for the configured WEBHOOK_SECRET.',
    hint: "Make the app's webhook secret and WEBHOOK_SECRET identical.",
  },
  SVC_GITHUB_DELIVERY_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The webhook delivery is malformed (missing X-GitHub-Event / X-GitHub-Delivery or a body that is not a JSON object).',
    hint: "Point only the GitHub App's webhook at /api/github/webhooks; redeliver a failed delivery from the app's settings on GitHub.",
  },
  SVC_GITHUB_REPOSITORY_NOT_INSTALLED: {
    status: 409,
    retryable: false,
    summary: 'The svc GitHub App is not installed on this repository (or the installation is suspended).',
    hint: 'Install the app on the repository (GitHub → Settings → GitHub Apps), then link again.',
  },
  SVC_GITHUB_LINK_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The project is not linked to a GitHub repository.',
    hint: 'Run svc link --repo owner/name --branch main.',
  },
  SVC_GITHUB_BRANCH_TAKEN: {
    status: 409,
    retryable: false,
    summary: 'Another project is already linked to this repository branch.',
    hint: 'Unlink the other project first, or link another branch.',
  },
  SVC_GITHUB_COMMIT_SUPERSEDED: {
    status: 409,
    retryable: false,
    summary: 'A newer commit was pushed to the linked branch, or a newer commit is already active; an older commit is never released over it.',
    hint: 'Nothing to do: the newer commit is (or will be) released. Roll back explicitly if you want the older code.',
  },
});
