// The pure decision of what a creating token allows: permissions subset, expiry never after the parent.
import { describe, expect, it } from 'vitest';
import { childTokenLimits } from '../../src/identity/child-token-limits.js';
import { isSvcError } from '../../src/core/errors.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-01T12:00:00.000Z');

function refusal(run: () => unknown): { code: string; details: unknown } {
  try {
    run();
  } catch (error) {
    if (isSvcError(error)) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('childTokenLimits', () => {
  it('without a parent: the asked or default lifetime, any permissions (the role still caps them)', () => {
    expect(childTokenLimits({ permissions: ['admin'], expiresInDays: 365 }, null, NOW, 90)).toEqual({ expiresAt: NOW + 365 * DAY });
    expect(childTokenLimits({ permissions: ['read'], expiresInDays: undefined }, null, NOW, 90)).toEqual({ expiresAt: NOW + 90 * DAY });
  });

  it('with a parent: the default is clamped to the parent, an explicit longer lifetime refused, a shorter one kept', () => {
    const parent = { permissions: ['read', 'deploy'] as const, expiresAt: NOW + DAY };
    expect(childTokenLimits({ permissions: ['read'], expiresInDays: undefined }, parent, NOW, 90)).toEqual({ expiresAt: NOW + DAY });
    expect(childTokenLimits({ permissions: ['read'], expiresInDays: 1 }, parent, NOW, 90)).toEqual({ expiresAt: NOW + DAY });
    expect(refusal(() => childTokenLimits({ permissions: ['read'], expiresInDays: 2 }, parent, NOW, 90))).toEqual({
      code: 'SVC_TOKEN_LIFETIME_EXCEEDED',
      details: { maxExpiresAt: new Date(NOW + DAY).toISOString(), requestedExpiresAt: new Date(NOW + 2 * DAY).toISOString() },
    });
    const longParent = { permissions: ['read'] as const, expiresAt: NOW + 200 * DAY };
    expect(childTokenLimits({ permissions: ['read'], expiresInDays: 30 }, longParent, NOW, 90)).toEqual({ expiresAt: NOW + 30 * DAY });
    expect(childTokenLimits({ permissions: ['read'], expiresInDays: undefined }, longParent, NOW, 90)).toEqual({ expiresAt: NOW + 90 * DAY });
  });

  it('with a parent: permissions beyond its own are refused, listing what exceeded and what is allowed', () => {
    const parent = { permissions: ['tokens', 'read'] as const, expiresAt: NOW + DAY };
    expect(refusal(() => childTokenLimits({ permissions: ['secrets', 'read', 'deploy'], expiresInDays: undefined }, parent, NOW, 90))).toEqual({
      code: 'SVC_TOKEN_PERMISSIONS_EXCEEDED',
      details: { exceeded: ['deploy', 'secrets'], allowed: ['read', 'tokens'] },
    });
    // Permissions are checked before the lifetime: the more serious refusal wins.
    expect(refusal(() => childTokenLimits({ permissions: ['admin'], expiresInDays: 365 }, parent, NOW, 90)).code).toBe('SVC_TOKEN_PERMISSIONS_EXCEEDED');
  });
});
