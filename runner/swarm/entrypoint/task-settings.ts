// What a swarm task's entrypoint reads from its environment, checked once. Pure: the environment is
// passed in. The directory overrides exist for tests, which run the entrypoint without a container.
import { join } from 'node:path';
import { SvcError } from '../../../src/core/errors.js';

export interface TaskSettings {
  /** Full URL of the release artifact on the release endpoint; its origin serves the job routes. */
  artifactUrl: URL;
  /** Lowercase hex SHA-256 the fetched artifact must have. */
  releaseDigest: string;
  /** The release this task runs (or whose migrations its job reads). */
  releaseId: string;
  /** How long the app keeps serving after the task is told to stop (lame duck). */
  drainMs: number;
  secretsDir: string;
  /** The tmpfs the release is extracted into (under `release/`). */
  appDir: string;
  /** The project volume. */
  dataDir: string;
  tmpDir: string;
  /** How long a request to the endpoint is retried while it cannot be reached. */
  retryWindowMs: number;
}

/** Entrypoint-only names (path overrides tests set): read here, never passed to the app. */
export const ENTRYPOINT_ONLY_ENV = ['SVC_SWARM_SECRETS_DIR', 'SVC_SWARM_APP_DIR', 'SVC_SWARM_DATA_DIR', 'SVC_SWARM_TMP_DIR'] as const;

/**
 * Names the entrypoint reads that no secret may take. SVC_DRAIN_MS reaches the app too: the app runs as
 * the same user as the task's init and entrypoint and can read their /proc environ, so withholding a value
 * the spec sets only hands it a platform value it "should not" see.
 */
export const ENTRYPOINT_SETTINGS = [...ENTRYPOINT_ONLY_ENV, 'SVC_DRAIN_MS'] as const;

export const DEFAULT_DRAIN_MS = 10_000;
const MAX_DRAIN_MS = 10 * 60 * 1000;
const RETRY_WINDOW_MS = 30_000;

function misconfigured(message: string): SvcError {
  return new SvcError('SVC_SWARM_TASK_CONFIG', message);
}

function required(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw misconfigured(`${name} is not set`);
  return value;
}

function absoluteDir(env: Readonly<Record<string, string | undefined>>, name: string, fallback: string): string {
  const value = env[name] ?? fallback;
  if (!value.startsWith('/') || value.includes('\0')) throw misconfigured(`${name} must be an absolute path`);
  return value.replace(/\/+$/, '') || '/';
}

/** The entrypoint's settings from the task environment, or SVC_SWARM_TASK_CONFIG naming what is wrong. */
export function readTaskSettings(env: Readonly<Record<string, string | undefined>>): TaskSettings {
  let artifactUrl: URL;
  try {
    artifactUrl = new URL(required(env, 'SVC_ARTIFACT_URL'));
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw misconfigured('SVC_ARTIFACT_URL is not a URL');
  }
  if (artifactUrl.protocol !== 'http:' && artifactUrl.protocol !== 'https:') throw misconfigured('SVC_ARTIFACT_URL must be http or https');
  if (artifactUrl.username !== '' || artifactUrl.password !== '') throw misconfigured('SVC_ARTIFACT_URL may not carry credentials');
  const releaseDigest = required(env, 'SVC_RELEASE_DIGEST');
  if (!/^[0-9a-f]{64}$/.test(releaseDigest)) throw misconfigured('SVC_RELEASE_DIGEST must be a lowercase hex SHA-256');
  const releaseId = required(env, 'SVC_RELEASE_ID');
  const drainText = env.SVC_DRAIN_MS ?? String(DEFAULT_DRAIN_MS);
  const drainMs = Number(drainText);
  if (!/^\d+$/.test(drainText) || drainMs > MAX_DRAIN_MS) throw misconfigured(`SVC_DRAIN_MS must be a whole number of milliseconds up to ${MAX_DRAIN_MS}`);
  return {
    artifactUrl,
    releaseDigest,
    releaseId,
    drainMs,
    secretsDir: absoluteDir(env, 'SVC_SWARM_SECRETS_DIR', '/run/secrets'),
    appDir: absoluteDir(env, 'SVC_SWARM_APP_DIR', '/app'),
    dataDir: absoluteDir(env, 'SVC_SWARM_DATA_DIR', '/data'),
    tmpDir: absoluteDir(env, 'SVC_SWARM_TMP_DIR', '/tmp'),
    retryWindowMs: RETRY_WINDOW_MS,
  };
}

/**
 * Where a task extracts its release: a directory inside the app tmpfs, because the mount point itself
 * belongs to root and could not be made read-only (or created atomically) by the task's user.
 */
export function taskReleaseDir(settings: Pick<TaskSettings, 'appDir'>): string {
  return join(settings.appDir, 'release');
}
