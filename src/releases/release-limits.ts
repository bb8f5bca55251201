// Per-project deploy capacity (docs/releases.md "Limits"): retained-artifact count and cumulative storage
// (uncompressed release files + database + WAL + recorded snapshot sizes). Settings are read from
// the operator's SVC_* environment; the checks are pure.
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { parseEnvSettings } from '../core/env-settings.js';

const GiB = 1024 * 1024 * 1024;

/** Operator settings of the releases feature (docs/releases.md "Limits"). */
export interface ReleaseSettings {
  /** Release artifacts a project may keep (active + inactive + in flight). SVC_PROJECT_MAX_RELEASES, default 10. */
  maxRetainedArtifacts: number;
  /** Storage quota per project in bytes. SVC_PROJECT_STORAGE_BYTES, default 2 GiB. */
  maxStorageBytes: number;
  /** Operator half of the unsafe-migration switch. SVC_ALLOW_UNSAFE_MIGRATIONS, default false. */
  operatorAllowsUnsafe: boolean;
  /** How long a deploy or rollback waits for the project lock; 0 refuses at once. SVC_DEPLOY_LOCK_WAIT_MS, default 0. */
  lockWaitMs: number;
  /** How long in-flight requests to the old release may finish before it stops. SVC_DRAIN_TIMEOUT_MS, default 5000. */
  drainTimeoutMs: number;
  /** How long new requests wait while a project has no app to serve (migration window, restore) before 503 with Retry-After. SVC_HOLD_REQUESTS_MS, default 30000; 0 answers 503 at once. */
  holdMs: number;
  /** Stop apps when the control plane shuts down (false: leave them for re-adoption). SVC_KEEP_APPS_ON_SHUTDOWN inverts, default stop. */
  stopAppsOnClose: boolean;
  /** How long an upload body may deliver no bytes before it is aborted (SVC_UPLOAD_STALLED) and the lock freed. SVC_UPLOAD_IDLE_TIMEOUT_MS, default 30000. */
  uploadIdleTimeoutMs: number;
}

const intSetting = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const settingsSchema = z.object({
  SVC_PROJECT_MAX_RELEASES: intSetting(1, 10_000).default(10),
  SVC_PROJECT_STORAGE_BYTES: intSetting(1024 * 1024, Number.MAX_SAFE_INTEGER).default(2 * GiB),
  SVC_ALLOW_UNSAFE_MIGRATIONS: bool.default(false),
  SVC_DEPLOY_LOCK_WAIT_MS: intSetting(0, 3_600_000).default(0),
  SVC_DRAIN_TIMEOUT_MS: intSetting(0, 600_000).default(5000),
  SVC_HOLD_REQUESTS_MS: intSetting(0, 600_000).default(30_000),
  SVC_KEEP_APPS_ON_SHUTDOWN: bool.default(false),
  SVC_UPLOAD_IDLE_TIMEOUT_MS: intSetting(10, 3_600_000).default(30_000),
});

/** Read and validate the releases settings from the platform's SVC_* environment. */
export function readReleaseSettings(env: Readonly<Record<string, string | undefined>>): ReleaseSettings {
  const s = parseEnvSettings(settingsSchema, env);
  return {
    maxRetainedArtifacts: s.SVC_PROJECT_MAX_RELEASES,
    maxStorageBytes: s.SVC_PROJECT_STORAGE_BYTES,
    operatorAllowsUnsafe: s.SVC_ALLOW_UNSAFE_MIGRATIONS,
    lockWaitMs: s.SVC_DEPLOY_LOCK_WAIT_MS,
    drainTimeoutMs: s.SVC_DRAIN_TIMEOUT_MS,
    holdMs: s.SVC_HOLD_REQUESTS_MS,
    stopAppsOnClose: !s.SVC_KEEP_APPS_ON_SHUTDOWN,
    uploadIdleTimeoutMs: s.SVC_UPLOAD_IDLE_TIMEOUT_MS,
  };
}

/** What a project uses now. */
export interface StorageUsage {
  bundleBytes: number;
  databaseBytes: number;
  snapshotBytes: number;
  totalBytes: number;
  retainedArtifacts: number;
}

/** Sum the parts of a project's usage. Pure. */
export function storageUsage(parts: { bundleBytes: number; databaseBytes: number; snapshotBytes: number; retainedArtifacts: number }): StorageUsage {
  return { ...parts, totalBytes: parts.bundleBytes + parts.databaseBytes + parts.snapshotBytes };
}

/**
 * Whether one more release fits: one more retained artifact, and current usage plus the new bundle
 * plus the snapshot about to be taken (as large as the database file) within the quota. Pure.
 */
export function checkReleaseCapacity(
  usage: StorageUsage,
  incoming: { bundleBytes: number; snapshotEstimateBytes: number },
  settings: Pick<ReleaseSettings, 'maxRetainedArtifacts' | 'maxStorageBytes'>,
): void {
  if (usage.retainedArtifacts + 1 > settings.maxRetainedArtifacts) {
    throw new SvcError(
      'SVC_RELEASE_RETAINED_LIMIT',
      `The project keeps ${usage.retainedArtifacts} release artifacts; the limit is ${settings.maxRetainedArtifacts}.`,
      {
        details: { retainedArtifacts: usage.retainedArtifacts, maxRetainedArtifacts: settings.maxRetainedArtifacts },
      },
    );
  }
  const needed = usage.totalBytes + incoming.bundleBytes + incoming.snapshotEstimateBytes;
  if (needed > settings.maxStorageBytes) {
    throw new SvcError('SVC_STORAGE_QUOTA_EXCEEDED', `This deploy needs ${needed} bytes of project storage; the quota is ${settings.maxStorageBytes}.`, {
      details: {
        usage,
        incomingBundleBytes: incoming.bundleBytes,
        snapshotEstimateBytes: incoming.snapshotEstimateBytes,
        maxStorageBytes: settings.maxStorageBytes,
      },
    });
  }
}
