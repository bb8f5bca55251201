// What the deployment platform passes to an app for its buckets: an isolated volume directory and catalog,
// a stable project-derived signing key (derived, never stored or returned by an API) and a unique prefix.
import { createHmac } from 'node:crypto';
import { join, resolve } from 'node:path';
import { RuntimeError } from '../errors.js';

/** Administrator limits for a project's buckets (become SVC_BUCKET_MAX_BYTES / SVC_BUCKET_MAX_OBJECTS). */
export interface PlatformBucketLimits {
  maxBytes?: number;
  maxObjects?: number;
}

/** The environment variables the platform sets for a project's app (pure; same inputs, same output). */
export function platformBucketEnvironment(
  projectId: string,
  projectRoot: string,
  masterSecret: string | Uint8Array,
  limits: PlatformBucketLimits = {},
): Record<string, string> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(projectId))
    throw new RuntimeError('SVC_BUCKET_CONFIG', 'Project ids for bucket environments are 1–128 letters, digits, "-" or "_".');
  const secret = typeof masterSecret === 'string' ? Buffer.from(masterSecret, 'utf8') : Buffer.from(masterSecret);
  if (secret.length < 32) throw new RuntimeError('SVC_BUCKET_CONFIG', 'The platform master secret must be at least 32 bytes.');
  const dir = join(resolve(projectRoot), 'buckets');
  const env: Record<string, string> = {
    SVC_BUCKET_DIR: dir,
    SVC_BUCKET_CATALOG: join(dir, 'catalog.sqlite'),
    // Domain-separated HMAC of the project id: stable across releases and restarts, distinct per project.
    SVC_BUCKET_SIGNING_KEY: createHmac('sha256', secret).update(`svc-bucket-signing-key/1\0${projectId}`).digest('base64url'),
    SVC_BUCKET_PREFIX: `projects/${projectId}/`,
  };
  if (limits.maxBytes !== undefined) env.SVC_BUCKET_MAX_BYTES = String(Math.max(0, Math.floor(limits.maxBytes)));
  if (limits.maxObjects !== undefined) env.SVC_BUCKET_MAX_OBJECTS = String(Math.max(0, Math.floor(limits.maxObjects)));
  return env;
}
