import { defineCodes } from './define.js';

/** Ingress: proxying app hosts to the active release, domains, request metrics. */
export const ingressCodes = defineCodes({
  SVC_INGRESS_UPSTREAM_UNAVAILABLE: {
    status: 502,
    retryable: true,
    summary: "The project's release did not accept the proxied request (connection refused, reset or timed out).",
    hint: 'Check the release logs; retry shortly.',
  },
  SVC_INGRESS_NO_ACTIVE_RELEASE: {
    status: 503,
    retryable: true,
    summary: 'The project has no active release to route requests to.',
    hint: 'Deploy a release (svc deploy).',
  },
  SVC_INGRESS_DOMAIN_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The domain is not a valid host name.',
    hint: 'Use a plain host name such as app.example.com (set SVC_APP_DOMAIN to a valid base domain).',
  },
  SVC_INGRESS_DOMAIN_TAKEN: {
    status: 409,
    retryable: false,
    summary: 'Another project already routes this domain.',
    hint: 'Remove the domain from the other project with `svc domains remove`, or use another domain.',
  },
  SVC_INGRESS_DOMAIN_RESERVED: {
    status: 409,
    retryable: false,
    summary: "The platform's own hosts (public host, listen host, loopback names, IP addresses) are never routed to a project.",
    hint: "Use a host that is not the platform's own (SVC_PUBLIC_URL, the listen host, localhost or an IP address).",
  },
  SVC_INGRESS_UPSTREAM_INVALID: {
    status: 400,
    retryable: false,
    summary: 'The upstream address is not a valid host name or IP and port.',
    hint: 'Retry the deploy; if it persists, check the runner configuration (SVC_RUNNER, SVC_CONTAINER_*) that supplies the app address.',
  },
});
