// Canonical JSON form of SQLite values. Integers stay JSON numbers (checked to be safe), reals and
// blobs are tagged so a restore binds exactly the storage class the app wrote.
import { SvcError } from '../core/errors.js';

/** One encoded value: null, integer, text, `{f}` real (non-finite or -0 as text), `{b}` blob (base64). */
export type EncodedValue = null | number | string | { f: number | string } | { b: string };

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Encode a value read with safeIntegers(true); throws SVC_RECOVERY_UNSAFE_INTEGER outside ±2^53−1. */
export function encodeValue(value: unknown, where: () => string): EncodedValue {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'bigint') {
    if (value > MAX || value < -MAX) {
      throw new SvcError('SVC_RECOVERY_UNSAFE_INTEGER', `${where()} holds ${value}, outside the safe integer range.`, { details: { where: where() } });
    }
    return Number(value);
  }
  if (typeof value === 'number') {
    if (Number.isFinite(value) && !Object.is(value, -0)) return { f: value };
    return { f: Object.is(value, -0) ? '-0' : String(value) };
  }
  if (value instanceof Uint8Array) return { b: Buffer.from(value).toString('base64') };
  throw new SvcError('SVC_RECOVERY_TABLE_UNSUPPORTED', `${where()} holds an unsupported value.`);
}

/** Decode to a value better-sqlite3 binds with the original storage class (integers as bigint). */
export function decodeValue(value: EncodedValue): null | bigint | number | string | Buffer {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError('encoded integer is not a safe integer');
    return BigInt(value);
  }
  if ('f' in value) return typeof value.f === 'number' ? value.f : Number(value.f);
  if ('b' in value) return Buffer.from(value.b, 'base64');
  throw new TypeError('unknown encoded value');
}
