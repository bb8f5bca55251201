import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret: `prefix` + base64url of `bytes` CSPRNG bytes (32 bytes = 256 bits by default). */
export function generateSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/** SHA-256 hex of a secret; the only form in which tokens, sessions and codes are stored. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time string comparison (lengths are compared first, which leaks only the length). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
