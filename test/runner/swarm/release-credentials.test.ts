import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../src/core/clock.js';
import { isSvcError } from '../../../src/core/errors.js';
import {
  bearerToken,
  credentialNeedsRenewal,
  CREDENTIAL_LIFETIME_MS,
  mintCredential,
  verifyCredential,
  type CredentialClaims,
  type VerifyInput,
} from '../../../runner/swarm/release-credentials.js';

const key = randomBytes(32);
const never = (): boolean => false;

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return isSvcError(error) ? error.code : `not an SvcError: ${String(error)}`;
  }
}

function mint(clock = manualClock(1_000_000), overrides: Partial<Parameters<typeof mintCredential>[0]> = {}) {
  return mintCredential({ key, clock, scope: 'release', id: 'rel_1', project: 'prj_1', generation: 3, ...overrides });
}

function verifyInput(clock = manualClock(1_000_000), overrides: Partial<VerifyInput> = {}): VerifyInput {
  return { key, clock, expect: { scope: 'release', id: 'rel_1' }, isRevoked: never, ...overrides };
}

describe('release credentials', () => {
  it('verifies what it minted and answers the claims', () => {
    const clock = manualClock(1_000_000);
    const { token, claims } = mint(clock);
    expect(token).toMatch(/^svc-rc1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(claims).toEqual({ scope: 'release', id: 'rel_1', project: 'prj_1', generation: 3, exp: 1_000_000 + CREDENTIAL_LIFETIME_MS.release });
    expect(verifyCredential(token, verifyInput(clock))).toEqual(claims);
  });

  it('mints the same token for the same claims (canonical payload, no randomness)', () => {
    expect(mint().token).toBe(mint().token);
    expect(mint(manualClock(1_000_001)).token).not.toBe(mint().token);
  });

  it('refuses a credential at and after its expiry, and accepts it just before', () => {
    const clock = manualClock(0);
    const { token } = mint(clock, { scope: 'job', id: 'job_1', lifetimeMs: 60_000 });
    const input = verifyInput(clock, { expect: { scope: 'job', id: 'job_1' } });
    clock.set(59_999);
    expect(verifyCredential(token, input).id).toBe('job_1');
    clock.set(60_000);
    expect(codeOf(() => verifyCredential(token, input))).toBe('SVC_RELEASE_CREDENTIAL_EXPIRED');
  });

  it('refuses another scope or another id of the same scope', () => {
    const { token } = mint();
    expect(codeOf(() => verifyCredential(token, verifyInput(undefined, { expect: { scope: 'job', id: 'rel_1' } })))).toBe('SVC_RELEASE_CREDENTIAL_SCOPE');
    expect(codeOf(() => verifyCredential(token, verifyInput(undefined, { expect: { scope: 'release', id: 'rel_2' } })))).toBe('SVC_RELEASE_CREDENTIAL_SCOPE');
    expect(codeOf(() => verifyCredential(token, verifyInput(undefined, { expect: (c) => c.project === 'prj_2' })))).toBe('SVC_RELEASE_CREDENTIAL_SCOPE');
  });

  it('asks the revocation check with the claims and refuses a revoked generation', () => {
    const seen: CredentialClaims[] = [];
    const current = 4;
    const { token } = mint();
    const input = verifyInput(undefined, {
      isRevoked: (claims) => {
        seen.push(claims);
        return claims.generation !== current;
      },
    });
    expect(codeOf(() => verifyCredential(token, input))).toBe('SVC_RELEASE_CREDENTIAL_REVOKED');
    expect(seen).toEqual([expect.objectContaining({ project: 'prj_1', id: 'rel_1', generation: 3 })]);
    expect(verifyCredential(mint(undefined, { generation: 4 }).token, input).generation).toBe(4);
  });

  it('refuses tampered payloads, signatures, prefixes and foreign keys, without calling the revocation check', () => {
    const { token } = mint();
    const [prefix, payload, mac] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CredentialClaims;
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp * 2 })).toString('base64url');
    const flipped = mac.slice(0, -2) + (mac.at(-2) === 'A' ? 'B' : 'A') + mac.at(-1);
    let asked = false;
    const input = verifyInput(undefined, { isRevoked: () => (asked = true) });
    for (const bad of [
      `${prefix}.${forged}.${mac}`,
      `${prefix}.${payload}.${flipped}`,
      `${prefix}.${payload}.${mac.slice(0, 20)}`,
      `svc-rc2.${payload}.${mac}`,
      `${prefix}.${payload}`,
      `${prefix}.${payload}.${mac}.x`,
      `${prefix}.${payload}.${mac}=`,
      mintCredential({ key: randomBytes(32), clock: manualClock(1_000_000), scope: 'release', id: 'rel_1', project: 'prj_1', generation: 3 }).token,
      'x'.repeat(5000),
      '',
    ]) {
      expect(
        codeOf(() => verifyCredential(bad, input)),
        bad.slice(0, 60),
      ).toBe('SVC_RELEASE_CREDENTIAL_INVALID');
    }
    expect(codeOf(() => verifyCredential(undefined, input))).toBe('SVC_RELEASE_CREDENTIAL_INVALID');
    expect(asked).toBe(false);
  });

  it('refuses a validly signed payload that is not canonical or has extra fields', () => {
    // Only a holder of the key could sign these; the check keeps one meaning per payload anyway.
    const sign = (json: string): string => {
      const payload = Buffer.from(json).toString('base64url');
      return `svc-rc1.${payload}.${createHmac('sha256', key).update(`svc-rc1.${payload}`).digest('base64url')}`;
    };
    const exp = 2_000_000;
    expect(verifyCredential(sign(`{"scope":"release","id":"rel_1","project":"prj_1","generation":3,"exp":${exp}}`), verifyInput()).exp).toBe(exp);
    expect(codeOf(() => verifyCredential(sign(`{"id":"rel_1","scope":"release","project":"prj_1","generation":3,"exp":${exp}}`), verifyInput()))).toBe(
      'SVC_RELEASE_CREDENTIAL_INVALID',
    );
    expect(
      codeOf(() => verifyCredential(sign(`{"scope":"release","id":"rel_1","project":"prj_1","generation":3,"exp":${exp},"admin":true}`), verifyInput())),
    ).toBe('SVC_RELEASE_CREDENTIAL_INVALID');
    expect(codeOf(() => verifyCredential(sign('not json'), verifyInput()))).toBe('SVC_RELEASE_CREDENTIAL_INVALID');
  });

  it('never puts the token into an error message', () => {
    const { token } = mint();
    for (const input of [
      verifyInput(manualClock(Number.MAX_SAFE_INTEGER)),
      verifyInput(undefined, { isRevoked: () => true }),
      verifyInput(undefined, { expect: { scope: 'job', id: 'x' } }),
    ]) {
      try {
        verifyCredential(token, input);
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toContain(token.split('.')[2]);
        expect((error as Error).message).not.toContain(token.split('.')[1]);
      }
    }
  });

  it('refuses short keys and bad claims when minting', () => {
    expect(() => mintCredential({ key: randomBytes(16), clock: manualClock(1), scope: 'release', id: 'rel_1', project: 'p', generation: 1 })).toThrow(
      /32 bytes/,
    );
    expect(() => mint(undefined, { id: '../x' })).toThrow();
    expect(() => mint(undefined, { generation: 0 })).toThrow();
    expect(() => mint(undefined, { lifetimeMs: 0 })).toThrow(/lifetime/);
  });

  it('says when a release credential should be renewed', () => {
    const clock = manualClock(0);
    const { claims } = mint(clock);
    expect(credentialNeedsRenewal(claims, clock)).toBe(false);
    clock.set(claims.exp - 30 * 24 * 60 * 60 * 1000);
    expect(credentialNeedsRenewal(claims, clock)).toBe(true);
  });

  it('reads a bearer token from an authorization header', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
