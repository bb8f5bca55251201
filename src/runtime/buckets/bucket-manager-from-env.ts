// Open the bucket manager from the environment: the S3 backend when SVC_BUCKET_S3_ENDPOINT is set,
// otherwise the local volume (SVC_BUCKET_DIR, default ./.svc-buckets). Local development needs no account:
// without SVC_BUCKET_SIGNING_KEY (and outside production) a random key is kept in <dir>/signing-key (0600).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';
import { createBucketManager, type BucketManagerOptions } from './create-bucket-manager.js';
import type { BucketManager } from './bucket-manager.js';
import { createLocalVolumeBackend } from './local-volume-backend.js';
import { createS3Backend } from './s3-backend.js';
import type { StorageBackend } from './storage-backend.js';

const S3Env = z.object({
  SVC_BUCKET_S3_ENDPOINT: z.string().url(),
  SVC_BUCKET_S3_REGION: z.string().min(1).default('us-east-1'),
  SVC_BUCKET_S3_BUCKET: z.string().min(1),
  SVC_BUCKET_S3_ACCESS_KEY_ID: z.string().min(1),
  SVC_BUCKET_S3_SECRET_ACCESS_KEY: z.string().min(1),
  SVC_BUCKET_S3_SESSION_TOKEN: z.string().optional(),
  SVC_BUCKET_S3_PATH_STYLE: z.enum(['0', '1', '']).optional(),
  SVC_BUCKET_PREFIX: z.string().min(1),
});

/** The storage backend the environment selects. */
export function backendFromEnv(env: Readonly<Record<string, string | undefined>>): StorageBackend {
  const dir = resolve(env.SVC_BUCKET_DIR ?? '.svc-buckets');
  if (env.SVC_BUCKET_S3_ENDPOINT === undefined || env.SVC_BUCKET_S3_ENDPOINT === '') return createLocalVolumeBackend({ root: dir });
  const parsed = S3Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new RuntimeError('SVC_BUCKET_CONFIG', `S3 bucket storage: ${issue.path.join('.')} ${issue.message}.`);
  }
  const e = parsed.data;
  return createS3Backend({
    endpoint: e.SVC_BUCKET_S3_ENDPOINT,
    region: e.SVC_BUCKET_S3_REGION,
    bucket: e.SVC_BUCKET_S3_BUCKET,
    accessKeyId: e.SVC_BUCKET_S3_ACCESS_KEY_ID,
    secretAccessKey: e.SVC_BUCKET_S3_SECRET_ACCESS_KEY,
    ...(e.SVC_BUCKET_S3_SESSION_TOKEN ? { sessionToken: e.SVC_BUCKET_S3_SESSION_TOKEN } : {}),
    pathStyle: e.SVC_BUCKET_S3_PATH_STYLE === '1',
    prefix: e.SVC_BUCKET_PREFIX,
  });
}

/** Create the manager from `SVC_BUCKET_*` variables (see docs/buckets.md). */
export async function bucketManagerFromEnv(
  definitions: BucketManagerOptions['definitions'],
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: Partial<Omit<BucketManagerOptions, 'definitions' | 'backend' | 'catalogPath' | 'signingKey' | 'env'>> = {},
): Promise<BucketManager> {
  const dir = resolve(env.SVC_BUCKET_DIR ?? '.svc-buckets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let signingKey = env.SVC_BUCKET_SIGNING_KEY;
  if (signingKey === undefined || signingKey === '') {
    if (env.NODE_ENV === 'production') throw new RuntimeError('SVC_BUCKET_CONFIG', 'Set SVC_BUCKET_SIGNING_KEY in production.');
    const file = join(dir, 'signing-key');
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    signingKey = readFileSync(file, 'utf8').trim();
  }
  return createBucketManager({
    ...options,
    definitions,
    backend: backendFromEnv(env),
    catalogPath: env.SVC_BUCKET_CATALOG ?? join(dir, 'catalog.sqlite'),
    signingKey,
    env,
  });
}
