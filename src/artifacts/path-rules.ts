// Pure rules for paths inside an artifact, shared by the packer, the config schema and the verifier.
import type { ErrorCode } from '../core/errors.js';

/** Longest path (UTF-8 bytes) and path segment an artifact may carry. */
export const MAX_PATH_BYTES = 1024;
export const MAX_SEGMENT_BYTES = 255;

/** A rule a path broke: the stable code and a short statement of the rule. */
export interface PathViolation {
  code: ErrorCode;
  rule: string;
}

// Private keys and credential files: rejected by name wherever they appear.
const privateKeyNames = new Set(['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', '.netrc', '.npmrc', '.pgpass']);
const privateKeyExtensions = ['.pem', '.key', '.p12', '.pfx', '.ppk', '.jks', '.keystore'];
// Version-control metadata directories (and `.git` files of worktrees/submodules).
const vcsNames = new Set(['.git', '.hg', '.svn', '.bzr', '_darcs', 'cvs', '.fslckout', '_fossil_']);

/** Why a single file or directory name is forbidden in an artifact, or undefined when it is allowed. */
export function forbiddenNameReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('.env')) return 'matches .env* (environment files hold credentials; use svc secrets)';
  if (vcsNames.has(lower)) return 'is version-control metadata';
  if (privateKeyNames.has(lower)) return 'is a private key or credential file name';
  if (privateKeyExtensions.some((ext) => lower.endsWith(ext))) return `has a private-key extension (${privateKeyExtensions.join(', ')})`;
  return undefined;
}

/** The first forbidden segment of a relative path with its reason, or undefined. */
export function forbiddenPathReason(path: string): string | undefined {
  for (const segment of path.split('/')) {
    const reason = forbiddenNameReason(segment);
    if (reason) return `"${segment}" ${reason}`;
  }
  return undefined;
}

// Control characters (including NUL), backslash (a separator on Windows) are never allowed in names.
// eslint-disable-next-line no-control-regex
const badCharacters = /[\u0000-\u001f\u007f\\]/;

/**
 * Check the shape of a relative POSIX path (artifact file path or config path): the first broken rule, or undefined.
 * Forbidden names are a separate check (forbiddenPathReason) so callers choose their own code for them.
 */
export function pathShapeViolation(path: string): PathViolation | undefined {
  if (path.length === 0) return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: 'must not be empty' };
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return { code: 'SVC_ARTIFACT_ABSOLUTE_PATH', rule: 'must be relative, not absolute' };
  const segments = path.split('/');
  if (segments.includes('..')) return { code: 'SVC_ARTIFACT_PATH_TRAVERSAL', rule: 'must not contain ".." segments' };
  if (badCharacters.test(path)) return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: 'must not contain control characters or backslashes' };
  if (segments.some((s) => s === '' || s === '.'))
    return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: 'must not contain empty or "." segments (no leading "./", trailing or double "/")' };
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: `must be at most ${MAX_PATH_BYTES} bytes` };
  if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES))
    return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: `segments must be at most ${MAX_SEGMENT_BYTES} bytes` };
  if (path.normalize('NFC') !== path) return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: 'must be in Unicode NFC form' };
  if (/[\uD800-\uDFFF]/.test(path.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')))
    return { code: 'SVC_ARTIFACT_PATH_INVALID', rule: 'must be valid Unicode (no lone surrogates)' };
  return undefined;
}

/** Whether `path` equals an include path or lies below one (include paths are normalized, no trailing "/"). */
export function isIncluded(path: string, includes: readonly string[]): boolean {
  return includes.some((inc) => path === inc || path.startsWith(`${inc}/`));
}

/** Byte-order comparison of the UTF-8 encodings (the artifact's file order); JS `<` compares UTF-16 units instead. */
export function compareUtf8(a: string, b: string): number {
  // UTF-16 order equals UTF-8 byte order unless a surrogate or U+E000..U+FFFF is involved.
  if (!highUnits.test(a) && !highUnits.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const highUnits = /[\uD800-\uFFFF]/;
