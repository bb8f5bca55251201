import { defineCodes } from './define.js';

/** Codes of GitHub Actions OIDC upload authentication (src/github/oidc) and of the svc GitHub Action (action/). */
export const oidcCodes = defineCodes({
  SVC_OIDC_TOKEN_INVALID: {
    status: 401,
    retryable: false,
    summary: 'The OIDC token is not a valid JWT from the configured issuer (signature, issuer, audience, not-before, lifetime or a missing claim).',
    hint: "Check SVC_OIDC_ISSUER / SVC_OIDC_AUDIENCE on the control plane and the Action's `audience` input.",
  },
  SVC_OIDC_TOKEN_EXPIRED: {
    status: 401,
    retryable: true,
    summary: 'The OIDC token has expired.',
    hint: 'Request a fresh token (the svc Action does this on every attempt).',
  },
  SVC_OIDC_TOKEN_REPLAYED: {
    status: 401,
    retryable: false,
    summary: 'This OIDC token (its `jti`) was already used; every upload needs a fresh token.',
    hint: 'Request a new ID token for each upload attempt.',
  },
  SVC_OIDC_PROJECT_NOT_LINKED: {
    status: 403,
    retryable: false,
    summary: 'OIDC uploads need the project to be linked to a GitHub repository branch, and the user who linked it to still be a member.',
    hint: 'Run svc link --repo owner/name --branch main, or use a project-scoped token.',
  },
  SVC_OIDC_CLAIMS_MISMATCH: {
    status: 403,
    retryable: false,
    summary: "The token's repository_id, ref or sha does not match the project's linked repository and branch, or the uploaded commit.",
    hint: 'Deploy from the linked branch; the Action sends the workflow commit (GITHUB_SHA).',
  },
  SVC_OIDC_UNAVAILABLE: {
    status: 503,
    retryable: true,
    summary: "The issuer's discovery document or JWKS could not be fetched, so the token could not be verified.",
    hint: 'Retry; check that the control plane can reach SVC_OIDC_ISSUER (or SVC_OIDC_JWKS_URL).',
  },
  SVC_ACTION_INPUT_INVALID: {
    status: 400,
    retryable: false,
    summary: 'An input of the svc GitHub Action (or a GITHUB_* variable it needs) is missing or invalid.',
    hint: "Fix the input named in the message in the workflow's `with:` block (see docs/github-action.md).",
  },
  SVC_ACTION_NO_CREDENTIAL: {
    status: 401,
    retryable: false,
    summary: 'The svc Action has neither an OIDC token request (ACTIONS_ID_TOKEN_REQUEST_URL) nor a `token` input.',
    hint: 'Add `permissions: id-token: write` to the job, or pass a project-scoped token in `token`.',
  },
  SVC_ACTION_OIDC_REQUEST_FAILED: {
    status: 502,
    retryable: true,
    summary: 'GitHub did not issue an OIDC ID token to the svc Action.',
    hint: 'Give the workflow job `permissions: id-token: write`, or pass a token instead (see docs/github-action.md).',
  },
});
