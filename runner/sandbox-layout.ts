// Where an app's files appear inside its sandbox, whatever the sandbox is (podman container,
// bubblewrap): the host paths of a start spec are mounted at fixed sandbox paths, and every path the
// platform hands the app in its environment is rewritten to the sandbox path. A host path that is not
// mounted would be unusable inside, or would leak the host layout, so it is refused. Pure: no I/O.
import { isAbsolute, posix, relative, sep } from 'node:path';
import { SvcError } from '../src/core/errors.js';
import type { AppStartSpec } from './app-runner.js';

export const SANDBOX_RELEASE_DIR = '/app';
export const SANDBOX_DATA_DIR = '/data';
export const SANDBOX_RECOVERY_DIR = '/recovery';

/** One bind mount: host `src` appears at sandbox `dst`. */
export interface SandboxMount {
  src: string;
  dst: string;
  writable: boolean;
}

export interface SandboxLayout {
  /** The release, read-only, and the app's working directory. */
  releaseDir: string;
  /** The project's persistent data, read-write. */
  dataDir: string;
  /** The project database as seen inside (always under dataDir). */
  databasePath: string;
  /** Every bind mount the sandbox gets, in mount order. */
  mounts: SandboxMount[];
  /** The platform-set variables with host paths rewritten to sandbox paths. */
  platformEnv: Record<string, string>;
}

export interface SandboxLayoutOptions {
  /**
   * The svc package a release links under node_modules/ (absolute symlinks): its parts are mounted
   * read-only at the same path so the link resolves inside. Never the whole directory, which may hold
   * the platform's own data.
   */
  platformPackageDir?: string;
}

/** The parts of the platform package an app needs to import `@svc-dev/svc/runtime` and `@svc-dev/svc/sqlite`. */
export const PLATFORM_PACKAGE_PARTS = ['package.json', 'dist', 'node_modules'] as const;

/** Sandbox paths that a same-path platform package mount must not shadow. */
const SANDBOX_OWNED = [SANDBOX_RELEASE_DIR, SANDBOX_DATA_DIR, SANDBOX_RECOVERY_DIR, '/proc', '/sys', '/dev'];

/** Values of variables named like this are key material, never paths (base64 may begin with "/"). */
const KEY_NAME = /_KEY$/;

function invalid(message: string): SvcError {
  return new SvcError('SVC_CONTAINER_INVALID_SPEC', message);
}

/** A host path that may be mounted: absolute, and free of the separators mount option syntax uses. */
function mountSource(path: string, what: string): string {
  if (!isAbsolute(path)) throw invalid(`${what} must be an absolute path`);
  if (path.includes(',') || path.includes('\n') || path.includes('\0')) throw invalid(`${what} may not contain commas or newlines`);
  return path;
}

/** `path` relative to `dir` in sandbox (posix) form, or null when it lies outside. */
function inside(dir: string, path: string): string | null {
  const rel = relative(dir, path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

function platformPackageMounts(dir: string): SandboxMount[] {
  const root = posix.resolve(mountSource(dir, 'The platform package path'));
  if (root === '/' || SANDBOX_OWNED.some((owned) => root === owned || root.startsWith(`${owned}/`))) {
    throw invalid(`The platform package path ${root} would cover a sandbox directory`);
  }
  return PLATFORM_PACKAGE_PARTS.map((part) => ({ src: `${root}/${part}`, dst: `${root}/${part}`, writable: false }));
}

/** Where the project database lies inside: it must be a file inside the data directory. */
function sandboxDatabasePath(spec: AppStartSpec): string {
  const rel = inside(spec.dataDir, spec.databasePath);
  if (rel === null || rel === '') throw invalid('The database path must lie inside the project data directory');
  return `${SANDBOX_DATA_DIR}/${rel}`;
}

/**
 * The layout of one start: the release read-only at /app, the data read-write at /data, the recovery
 * repository read-write at /recovery when SVC_RECOVERY_DIR is set, and the platform package parts
 * read-only at their own path. platformEnv values that are absolute paths must lie under the data
 * directory (rewritten to /data/…) or be SVC_RECOVERY_DIR (rewritten to /recovery); any other host
 * path is refused with SVC_CONTAINER_INVALID_SPEC.
 */
export function sandboxLayout(spec: AppStartSpec, options: SandboxLayoutOptions = {}): SandboxLayout {
  const mounts: SandboxMount[] = [
    { src: mountSource(spec.releaseDir, 'The release directory'), dst: SANDBOX_RELEASE_DIR, writable: false },
    { src: mountSource(spec.dataDir, 'The data directory'), dst: SANDBOX_DATA_DIR, writable: true },
  ];
  const databasePath = sandboxDatabasePath(spec);
  const platformEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.platformEnv ?? {})) {
    if (name === 'SVC_RECOVERY_DIR') {
      mounts.push({ src: mountSource(value, 'SVC_RECOVERY_DIR'), dst: SANDBOX_RECOVERY_DIR, writable: true });
      platformEnv[name] = SANDBOX_RECOVERY_DIR;
    } else if (KEY_NAME.test(name) || !isAbsolute(value)) {
      platformEnv[name] = value;
    } else {
      const rel = inside(spec.dataDir, value);
      if (rel === null) throw invalid(`${name} names a host path outside the project data directory`);
      platformEnv[name] = rel === '' ? SANDBOX_DATA_DIR : `${SANDBOX_DATA_DIR}/${rel}`;
    }
  }
  if (options.platformPackageDir !== undefined) mounts.push(...platformPackageMounts(options.platformPackageDir));
  return { releaseDir: SANDBOX_RELEASE_DIR, dataDir: SANDBOX_DATA_DIR, databasePath, mounts, platformEnv };
}
