// The platform master key: SVC_PLATFORM_MASTER_KEY (32 bytes, hex or base64), or the private file
// `<data>/master.key` generated on first start (mode 0600). Purpose keys for secrets and backups
// are derived from it with HKDF, and a key check value (HMAC of a constant) stored in the control
// database detects a wrong key at start, before anything is decrypted.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync, fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';

/** Environment variable holding the master key. */
const MASTER_KEY_ENV = 'SVC_PLATFORM_MASTER_KEY';
/** File name of the generated key inside the data directory. */
export const MASTER_KEY_FILE = 'master.key';
/** A rotation writes the new key here first and renames it over master.key after the database commit. */
export const NEXT_MASTER_KEY_FILE = 'master.key.next';

/** The master key and what is derived from it. */
export interface Keyring {
  /** Key check value: lets a start-up tell a wrong key from the right one without decrypting anything. */
  readonly checkValue: string;
  /** AES-256-GCM key of secret values. */
  readonly secretsKey: Buffer;
  /** AES-256-GCM key that wraps each backup's own data key. */
  readonly backupsKey: Buffer;
  /** Where the key came from. */
  readonly source: 'env' | 'file';
}

/** Parse a 32-byte key given as 64 hex characters or (standard or URL-safe) base64. */
export function parseMasterKey(text: string): Buffer {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new SvcError('SVC_MASTER_KEY_INVALID', `The master key must be 32 bytes written as 64 hex characters or base64 (got ${value.length} characters).`);
}

/** The key check value of a master key (hex HMAC-SHA256 of a fixed label). Pure. */
export function keyCheckValue(master: Uint8Array): string {
  return createHmac('sha256', master).update('svc/master-key-check/v1').digest('hex');
}

/** Derive the keyring of a master key. Pure. */
export function deriveKeyring(master: Uint8Array, source: Keyring['source']): Keyring {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
  return { checkValue: keyCheckValue(master), secretsKey: derive('svc/secrets/v1'), backupsKey: derive('svc/backups/v1'), source };
}

/** Base64 text of a fresh random master key. */
export function generateMasterKeyText(): string {
  return randomBytes(32).toString('base64');
}

export interface LoadMasterKeyOptions {
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
  /** The key check value stored in the control database, or null before the first start. */
  storedCheckValue: string | null;
}

/**
 * Load the master key: the environment variable wins; otherwise the key file (which must be
 * private), generated on the very first start only. A file left by an interrupted rotation whose
 * key matches the stored check value is completed (renamed over master.key). Throws
 * SVC_MASTER_KEY_MISMATCH when the key does not match the stored check value.
 */
export function loadMasterKey(options: LoadMasterKeyOptions): Keyring {
  const fromEnv = options.env[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return verify(deriveKeyring(parseMasterKey(fromEnv), 'env'), options.storedCheckValue, `${MASTER_KEY_ENV}`);
  const file = join(options.dataDir, MASTER_KEY_FILE);
  const next = join(options.dataDir, NEXT_MASTER_KEY_FILE);
  if (existsSync(next) && options.storedCheckValue !== null) {
    const pending = deriveKeyring(readKeyFile(next), 'file');
    if (pending.checkValue === options.storedCheckValue) {
      // The rotation committed but crashed before the rename: finish it.
      renameSync(next, file);
      void fsyncDirectory(options.dataDir).catch(() => undefined);
      return pending;
    }
  }
  if (!existsSync(file)) {
    if (options.storedCheckValue !== null) {
      throw new SvcError('SVC_MASTER_KEY_MISSING', `${file} is missing and ${MASTER_KEY_ENV} is not set, but secrets were encrypted under a master key.`);
    }
    atomicWriteFileSync(file, `${generateMasterKeyText()}\n`, { mode: 0o600 });
  }
  return verify(deriveKeyring(readKeyFile(file), 'file'), options.storedCheckValue, file);
}

/** Read a key file, refusing one that group or others can read. */
export function readKeyFile(path: string): Buffer {
  const info = statSync(path);
  if (!info.isFile() || (info.mode & 0o077) !== 0) {
    throw new SvcError('SVC_MASTER_KEY_INVALID', `${path} must be a regular file with mode 0600 (it is ${(info.mode & 0o777).toString(8)}).`);
  }
  return parseMasterKey(readFileSync(path, 'utf8'));
}

function verify(keyring: Keyring, stored: string | null, where: string): Keyring {
  if (stored !== null && stored !== keyring.checkValue) {
    throw new SvcError(
      'SVC_MASTER_KEY_MISMATCH',
      `The master key from ${where} is not the key the stored secrets and backups were encrypted with (key check value differs).`,
    );
  }
  return keyring;
}
