// The svc client (package export "./runtime/client"): browsers and Node 20.
export { createClient, CSRF_HEADER, type ClientOptions, type SvcClient } from './create-client.js';
export { LiveSubscription, type LiveState, type LiveSeed } from './live-subscription.js';
export { SvcClientError } from './client-error.js';
export { backoffDelay, type BackoffPolicy } from './backoff.js';
export { readCsrfMeta, CSRF_META_NAME } from './csrf.js';
