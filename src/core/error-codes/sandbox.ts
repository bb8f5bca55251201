import { defineCodes } from './define.js';

/** Codes of the sandboxed process runner (bubblewrap, per-app network namespace). */
export const sandboxCodes = defineCodes({
  SVC_SANDBOX_UNAVAILABLE: {
    status: 503,
    retryable: false,
    summary: 'Apps cannot be started: the sandbox (bubblewrap, user and PID namespaces, slirp4netns and socat for the app network) is not usable on this host.',
    hint: 'Run `bash scripts/setup-host.sh` (or `apt-get install -y bubblewrap slirp4netns socat`) and allow unprivileged user namespaces, or run apps in containers with SVC_RUNNER=container. Only for trusted apps: SVC_SANDBOX=off.',
  },
  SVC_SANDBOX_CONFIG: {
    status: 400,
    retryable: false,
    configuration: 'svc-runner',
    summary: 'A sandbox setting (SVC_SANDBOX, SVC_SANDBOX_*) is invalid.',
    hint: 'See docs/security.md for the settings and their allowed values.',
  },
  SVC_SANDBOX_START_FAILED: {
    status: 502,
    retryable: false,
    summary: 'The app sandbox could not be set up (namespaces, mounts or its network).',
    hint: 'The app log holds the sandbox error; `svc doctor` and GET /readyz say whether the sandbox works on this host.',
  },
});
