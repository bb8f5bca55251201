// Keys of one epoch, derived from the operator's 32-byte key with HKDF so each use (entries, base,
// repository metadata) has its own key and a key check never reveals the key itself.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { SvcError } from '../core/errors.js';

/** Format tag written into every repository file and bound into every MAC and AAD. */
export const RECOVERY_FORMAT = 'svc-recovery/1';

/** Per-epoch keys; the operator key itself is never written anywhere. */
export interface RecoveryKeys {
  /** AES-256-GCM key of journal entries. */
  readonly entry: Buffer;
  /** AES-256-GCM key of the base snapshot. */
  readonly base: Buffer;
  /** HMAC-SHA256 key of epoch.json and head.json. */
  readonly meta: Buffer;
  /** Public fingerprint that tells "wrong key" apart from "tampered file" (hex, 128 bits). */
  readonly keyCheck: string;
}

/** Check that `key` is exactly 32 bytes; returns a private copy. */
export function checkEncryptionKey(key: unknown): Buffer {
  if (!(key instanceof Uint8Array) || key.byteLength !== 32) {
    throw new SvcError('SVC_RECOVERY_KEY_INVALID', 'encryptionKey must be exactly 32 bytes (a Buffer or Uint8Array).');
  }
  return Buffer.from(key);
}

/** Derive the keys of one epoch from the operator key. */
export function deriveRecoveryKeys(key: Uint8Array, epochId: string): RecoveryKeys {
  const derive = (use: string): Buffer => Buffer.from(hkdfSync('sha256', key, Buffer.from(epochId), Buffer.from(`${RECOVERY_FORMAT} ${use}`), 32));
  return {
    entry: derive('entry'),
    base: derive('base'),
    meta: derive('meta'),
    keyCheck: derive('key-check').subarray(0, 16).toString('hex'),
  };
}

/** HMAC-SHA256 (hex) of a metadata document under the meta key. */
export function macOf(metaKey: Buffer, text: string): string {
  return createHmac('sha256', metaKey).update(text).digest('hex');
}

/** Constant-time comparison of two hex strings. */
export function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
