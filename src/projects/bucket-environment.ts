// Managed buckets on the platform: every project gets its own volume directory and catalog under its
// data directory (so project deletion removes them), a stable project-derived signing key (derived from
// the platform's secrets key, never stored or returned by an API) and a unique object prefix.
import { platformBucketEnvironment } from '../runtime/buckets/platform-environment.js';
import { SvcError } from '../core/errors.js';

/** Administrator limits from SVC_PROJECT_BUCKET_MAX_BYTES / _OBJECTS (positive integers, optional). */
export function bucketLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): { maxBytes?: number; maxObjects?: number } {
  const read = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (!/^\d{1,15}$/.test(raw)) throw new SvcError('SVC_VALIDATION', `${name} must be a non-negative integer (got ${JSON.stringify(raw)}).`);
    return Number(raw);
  };
  const maxBytes = read('SVC_PROJECT_BUCKET_MAX_BYTES');
  const maxObjects = read('SVC_PROJECT_BUCKET_MAX_OBJECTS');
  return { ...(maxBytes === undefined ? {} : { maxBytes }), ...(maxObjects === undefined ? {} : { maxObjects }) };
}

/** The `SVC_BUCKET_*` variables an app of `projectId` starts with; `dataDir` is the project's persistent data directory. */
export function projectBucketEnvironment(
  projectId: string,
  dataDir: string,
  secretsKey: Uint8Array,
  limits: { maxBytes?: number; maxObjects?: number },
): Record<string, string> {
  return platformBucketEnvironment(projectId, dataDir, secretsKey, limits);
}
