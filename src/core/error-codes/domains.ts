import { defineCodes } from './define.js';

/** Custom domains and the edge proxy's certificate permission lookup (src/projects/domains*, tls-ask*). */
export const domainsCodes = defineCodes({
  SVC_DOMAIN_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The domain is not a valid DNS host name with at least two labels (no wildcard, port or path).',
    hint: 'Pass a host name such as shop.example.com to `svc domains add`.',
  },
  SVC_DOMAIN_RESERVED: {
    status: 409,
    retryable: false,
    summary:
      'The name belongs to the platform: its public host (SVC_PUBLIC_URL), listen host or app domain (SVC_APP_DOMAIN), a parent of one or a name under one, localhost or *.localhost, or an IP address.',
    hint: "Use a DNS name of your own outside the platform's names; every project is already served at <slug>.<app domain>.",
  },
  SVC_DOMAIN_TAKEN: { status: 409, retryable: false, summary: 'Another project already claimed this domain.', hint: 'Remove it from the other project first.' },
  SVC_DOMAIN_PREVIEW: {
    status: 409,
    retryable: false,
    summary: 'Custom domains cannot be added to a pull request preview: it lives only as long as its pull request.',
    hint: 'Add the domain to the production project; a preview is served at pr-<n>--<slug>.<app domain>.',
  },
  SVC_DOMAIN_NOT_FOUND: {
    status: 404,
    retryable: false,
    summary: 'The project has no such custom domain.',
    hint: "List the project's domains with `svc domains` and use one of those.",
  },
  SVC_DOMAIN_LIMIT: {
    status: 409,
    retryable: false,
    summary: 'The project already has the maximum number of custom domains (50).',
    hint: 'Remove unused domains with `svc domains remove <domain>` first.',
  },
  SVC_TLS_ASK_DISABLED: {
    status: 503,
    retryable: false,
    summary: 'The edge certificate lookup is disabled because SVC_TLS_ASK_TOKEN is not set.',
    hint: 'Set SVC_TLS_ASK_TOKEN (at least 16 characters) and put it in the edge proxy configuration.',
  },
  SVC_TLS_ASK_FORBIDDEN: {
    status: 403,
    retryable: false,
    summary: 'The edge certificate lookup token is missing or wrong.',
    hint: 'Give the edge proxy the same token as SVC_TLS_ASK_TOKEN (see docs/domains.md).',
  },
  SVC_TLS_ASK_UNKNOWN_DOMAIN: {
    status: 404,
    retryable: false,
    summary: 'svc does not serve this domain, so no certificate may be issued for it.',
    hint: 'Add the domain to a project with `svc domains add <domain>` before requesting its certificate.',
  },
});
