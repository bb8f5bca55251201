// The bearer credentials a swarm task shows the release endpoint: an HMAC-SHA256 over a canonical
// payload naming one release (or one job) of one project and one deploy generation, with an expiry.
// Pure: the key and the clock are passed in; nothing is stored, so revocation is the caller's check.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';

export type CredentialScope = 'release' | 'job';

/** What a credential grants: `scope` `id` (a release id or a job id) of `project`, minted for `generation`, until `exp`. */
export interface CredentialClaims {
  scope: CredentialScope;
  id: string;
  project: string;
  /** The deploy generation (release) or job run the credential was minted for; revocation compares it. */
  generation: number;
  /** Milliseconds since the epoch after which the credential is refused. */
  exp: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Default lifetimes. A release credential lives in a swarm secret that swarm hands every task it
 * restarts, minutes or months after the deploy, so it must outlive any supervised restart: its real
 * bound is revocation (the driver answers `isRevoked` for every generation it replaced or removed).
 * The expiry only limits a credential the driver forgot; the driver renews it with a service update
 * once `credentialNeedsRenewal` says so. A job runs once and never restarts: hours are plenty.
 */
export const CREDENTIAL_LIFETIME_MS: Readonly<Record<CredentialScope, number>> = Object.freeze({ release: 180 * DAY_MS, job: 6 * 60 * 60 * 1000 });
/** A release credential with less than this left is renewed at the driver's next chance. */
export const CREDENTIAL_RENEW_BEFORE_MS = 30 * DAY_MS;

const PREFIX = 'svc-rc1';
const MIN_KEY_BYTES = 32;
const idPattern = /^[A-Za-z0-9_.-]{1,128}$/;
const segment = /^[A-Za-z0-9_-]+$/;
/** A token longer than this is refused before any work (ids are bounded, so real ones are far shorter). */
const MAX_TOKEN_LENGTH = 1024;

const claimsSchema = z.strictObject({
  scope: z.enum(['release', 'job']),
  id: z.string().regex(idPattern),
  project: z.string().regex(idPattern),
  generation: z.number().int().positive(),
  exp: z.number().int().positive(),
});

/** The signed bytes: fixed key order, so one set of claims has exactly one payload. */
function canonicalPayload(claims: CredentialClaims): string {
  return JSON.stringify({ scope: claims.scope, id: claims.id, project: claims.project, generation: claims.generation, exp: claims.exp });
}

function signature(key: Uint8Array, payloadSegment: string): Buffer {
  if (key.byteLength < MIN_KEY_BYTES) throw new Error(`release credential keys need at least ${MIN_KEY_BYTES} bytes`);
  return createHmac('sha256', key).update(`${PREFIX}.${payloadSegment}`).digest();
}

export interface MintInput {
  key: Uint8Array;
  clock: Clock;
  scope: CredentialScope;
  id: string;
  project: string;
  generation: number;
  /** Default: CREDENTIAL_LIFETIME_MS of the scope. */
  lifetimeMs?: number;
}

/** A new credential `svc-rc1.<payload>.<mac>` (base64url) and the claims it carries. */
export function mintCredential(input: MintInput): { token: string; claims: CredentialClaims } {
  const lifetime = input.lifetimeMs ?? CREDENTIAL_LIFETIME_MS[input.scope];
  if (!Number.isSafeInteger(lifetime) || lifetime <= 0) throw new Error('a credential lifetime must be a positive number of milliseconds');
  const claims = claimsSchema.parse({
    scope: input.scope,
    id: input.id,
    project: input.project,
    generation: input.generation,
    exp: input.clock.now() + lifetime,
  });
  const payload = Buffer.from(canonicalPayload(claims)).toString('base64url');
  return { token: `${PREFIX}.${payload}.${signature(input.key, payload).toString('base64url')}`, claims };
}

export interface VerifyInput {
  key: Uint8Array;
  clock: Clock;
  /**
   * What the route serves: one scope and id, or a check over the claims (a job credential may fetch
   * the artifact of the release its job needs). A credential of anything else is refused.
   */
  expect: { scope: CredentialScope; id: string } | ((claims: CredentialClaims) => boolean);
  /** True for a credential whose release generation or job the driver replaced, removed or finished. */
  isRevoked: (claims: CredentialClaims) => boolean;
}

function invalid(message: string): SvcError {
  return new SvcError('SVC_RELEASE_CREDENTIAL_INVALID', message);
}

/**
 * The claims of a credential valid for `expect` now, or an SvcError: _INVALID (missing, malformed,
 * not signed with `key`), _SCOPE (another release or job), _EXPIRED, _REVOKED. Messages never repeat
 * the token.
 */
export function verifyCredential(token: string | undefined, input: VerifyInput): CredentialClaims {
  if (!token) throw invalid('No release credential was presented');
  if (token.length > MAX_TOKEN_LENGTH) throw invalid('The release credential is malformed');
  const parts = token.split('.');
  const [prefix, payload, mac] = parts;
  if (parts.length !== 3 || prefix !== PREFIX || !payload || !mac || !segment.test(payload) || !segment.test(mac)) {
    throw invalid('The release credential is malformed');
  }
  const expected = signature(input.key, payload);
  const given = Buffer.from(mac, 'base64url');
  // Compare in constant time; a length difference reveals nothing about the key.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('The release credential is not signed by this control plane');
  const text = Buffer.from(payload, 'base64url').toString('utf8');
  let claims: CredentialClaims;
  try {
    claims = claimsSchema.parse(JSON.parse(text));
  } catch {
    throw invalid('The release credential carries malformed claims');
  }
  if (canonicalPayload(claims) !== text) throw invalid('The release credential carries malformed claims');
  const { expect } = input;
  if (typeof expect === 'function' ? !expect(claims) : claims.scope !== expect.scope || claims.id !== expect.id) {
    throw new SvcError('SVC_RELEASE_CREDENTIAL_SCOPE', `The credential of ${claims.scope} ${claims.id} does not grant this request`);
  }
  if (input.clock.now() >= claims.exp) throw new SvcError('SVC_RELEASE_CREDENTIAL_EXPIRED', `The credential of ${claims.scope} ${claims.id} expired`);
  if (input.isRevoked(claims))
    throw new SvcError('SVC_RELEASE_CREDENTIAL_REVOKED', `The credential of ${claims.scope} ${claims.id} (generation ${claims.generation}) was revoked`);
  return claims;
}

/** Whether the driver should mint a new release credential (and update the service with it) now. */
export function credentialNeedsRenewal(claims: Pick<CredentialClaims, 'exp'>, clock: Clock, renewBeforeMs = CREDENTIAL_RENEW_BEFORE_MS): boolean {
  return claims.exp - clock.now() <= renewBeforeMs;
}

/** The bearer token of an `authorization` header value, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? '');
  return match?.[1];
}
