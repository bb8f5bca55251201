// Friendly sentences for the error codes a console user meets most; the code is always shown too,
// and any other code falls back to the server's own message.
const friendly: Record<string, string> = {
  SVC_AUTH_REQUIRED: 'Your session has ended. Sign in again to continue.',
  SVC_AUTH_INVALID_CREDENTIALS: 'That email and password do not match an account.',
  SVC_CSRF_INVALID: 'The page was open too long and its security token went stale. Reload and try again.',
  SVC_ORIGIN_REJECTED: 'The request did not come from this console’s own address.',
  SVC_FORBIDDEN: 'Your role in this organization does not allow this.',
  SVC_TOKEN_SCOPE: 'This needs an account-wide sign-in, not a project-scoped token.',
  SVC_REGISTRATION_CLOSED: 'Self-registration is closed on this platform. Ask an administrator for an invitation.',
  SVC_EMAIL_TAKEN: 'An account with this email already exists. Sign in instead.',
  SVC_INVITATION_INVALID: 'The invitation is unknown, already used, expired, or for another email.',
  SVC_DEVICE_USER_CODE_INVALID: 'No pending sign-in request has this code. Check the code in your terminal.',
  SVC_DEVICE_ALREADY_DECIDED: 'This sign-in request was already approved, denied, or has expired.',
  SVC_DEVICE_TOO_MANY_ATTEMPTS: 'Too many wrong codes. Wait a few minutes and try again.',
  SVC_RATE_LIMITED: 'Too many attempts. Wait a moment and try again.',
  SVC_VALIDATION: 'Some of the values are not valid.',
  SVC_PROJECT_SLUG_INVALID: 'Slugs are 3–40 lowercase letters, digits and single dashes.',
  SVC_PROJECT_SLUG_RESERVED: 'That slug is reserved by the platform. Choose another.',
  SVC_PROJECT_SLUG_TAKEN: 'Another project already uses that slug.',
  SVC_PROJECT_NOT_FOUND: 'This project does not exist, or you are not a member of its organization.',
  SVC_RELEASE_CONFIRMATION_MISMATCH: 'The confirmation phrase does not match. Type it exactly as shown.',
  SVC_RESTORE_NOT_ALLOWED: 'Data can only be restored when rolling back to the immediately previous release that has a pre-deploy snapshot.',
  SVC_ORG_LAST_OWNER: 'An organization must keep at least one owner.',
  SVC_PLATFORM_ADMIN_REQUIRED: 'Only the platform administrator (the first account registered on this server) can see this.',
  SVC_OPS_NOT_CONFIGURED: 'The operations monitor is not configured on this server (SVC_OPS_WEBHOOK_URL and SVC_OPS_WEBHOOK_SECRET).',
  SVC_INTERNAL: 'The server hit an unexpected error. It has been logged; try again later.',
  SVC_NETWORK: 'The control plane could not be reached. Check your connection and try again.',
};

/** A sentence for a person, for this error code (or the server's message). Pure. */
export function friendlyMessage(code: string, serverMessage: string): string {
  return friendly[code] ?? serverMessage;
}
