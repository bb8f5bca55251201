// Browser capabilities: HMAC-SHA256 over a canonical encoding of (operation, bucket, owner, key, reservation,
// expiry). Changing any byte invalidates them; comparison is constant-time; lifetime is at most 24 hours.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { RuntimeError } from '../errors.js';

/** Longest lifetime a capability may be issued with. */
export const MAX_CAPABILITY_MS = 24 * 60 * 60 * 1000;
const VERSION = 'svc-cap/1';

/** What a capability allows: `upload` (HEAD/PATCH/DELETE of one reservation) or `read` (GET one object). */
export type CapabilityOperation = 'upload' | 'read';

/** The signed claims. `reservation` is '' for reads; `expiresAt` is epoch milliseconds. */
export interface Capability {
  readonly op: CapabilityOperation;
  readonly bucket: string;
  readonly owner: string;
  readonly key: string;
  readonly reservation: string;
  readonly expiresAt: number;
}

const Claims = z.tuple([
  z.literal(VERSION),
  z.enum(['upload', 'read']),
  z.string().max(64),
  z.string().max(256),
  z.string().max(1024),
  z.string().max(80),
  z.number().int().nonnegative(),
]);

/** Check a signing key (at least 32 characters) and return its bytes. */
export function signingKeyBytes(key: string | Uint8Array | undefined): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key === undefined ? Buffer.alloc(0) : Buffer.from(key);
  if (bytes.length < 32)
    throw new RuntimeError('SVC_BUCKET_CONFIG', 'SVC_BUCKET_SIGNING_KEY must be at least 32 characters (generate one with `openssl rand -hex 32`).');
  return bytes;
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(`${VERSION}.${payload}`).digest();
}

/** Sign a capability; throws SVC_BUCKET_INVALID_REQUEST when it is already expired or lives longer than 24 h. */
export function signCapability(key: Buffer, claims: Capability, now: number): string {
  if (claims.expiresAt <= now || claims.expiresAt - now > MAX_CAPABILITY_MS) {
    throw new RuntimeError('SVC_BUCKET_INVALID_REQUEST', 'A capability must expire within 24 hours from now.');
  }
  const payload = Buffer.from(
    JSON.stringify([VERSION, claims.op, claims.bucket, claims.owner, claims.key, claims.reservation, Math.floor(claims.expiresAt)]),
  ).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** Verify a token for an operation on a bucket; SVC_BUCKET_CAPABILITY_INVALID / _EXPIRED otherwise. */
export function verifyCapability(key: Buffer, token: string, now: number, expected: { op: CapabilityOperation; bucket: string }): Capability {
  const invalid = (): never => {
    throw new RuntimeError('SVC_BUCKET_CAPABILITY_INVALID', 'The capability is not valid for this request.');
  };
  if (token.length > 4096) invalid();
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) invalid();
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const wanted = mac(key, payload);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) invalid();
  let parsed: z.infer<typeof Claims> | undefined;
  try {
    parsed = Claims.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    invalid();
  }
  const [, op, bucket, owner, objectKey, reservation, expiresAt] = parsed!;
  if (op !== expected.op || bucket !== expected.bucket) invalid();
  if (expiresAt <= now) throw new RuntimeError('SVC_BUCKET_CAPABILITY_EXPIRED', 'The capability has expired.');
  if (expiresAt - now > MAX_CAPABILITY_MS) invalid();
  return { op, bucket, owner, key: objectKey, reservation, expiresAt };
}
