import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { decideDevicePoll } from '../../src/identity/device-poll.js';
import { normalizeUserCode, USER_CODE_ALPHABET } from '../../src/identity/user-code.js';
import { bearer, ORIGIN, register, rows, snapshotCounts, startHarness, type Harness } from '../platform/harness.js';

async function start(h: Harness, clientName = 'svc CLI on laptop') {
  const res = await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName } });
  expect(res.statusCode).toBe(200);
  return res.json() as { deviceCode: string; userCode: string; verificationUri: string; verificationUriComplete: string; expiresIn: number; interval: number };
}
const poll = (h: Harness, deviceCode: string) => h.app.inject({ method: 'POST', url: '/api/device/token', payload: { deviceCode } });

describe('device login', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it('start → review → approve → the next poll returns the token once; only hashes are stored', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const d = await start(h);
    expect(d.deviceCode.length).toBeGreaterThanOrEqual(43);
    expect(d.userCode).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));
    expect(d).toMatchObject({
      verificationUri: `${ORIGIN}/device`,
      verificationUriComplete: `${ORIGIN}/device?code=${d.userCode}`,
      expiresIn: 600,
      interval: 5,
    });

    const pending = await poll(h, d.deviceCode);
    expect(pending.statusCode).toBe(400);
    expect(pending.json().error.code).toBe('SVC_DEVICE_AUTHORIZATION_PENDING');

    const info = await h.app.inject({ method: 'GET', url: `/api/device/info?userCode=${d.userCode.toLowerCase()}`, headers: { cookie: owner.cookie } });
    expect(info.json()).toMatchObject({ userCode: d.userCode, clientName: 'svc CLI on laptop', status: 'pending' });

    const approve = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(approve.json()).toEqual({ userCode: d.userCode, clientName: 'svc CLI on laptop', status: 'approved' });

    h.clock.advance(5_000);
    const issued = await poll(h, d.deviceCode);
    expect(issued.statusCode).toBe(200);
    const { accessToken, tokenId, expiresAt, user } = issued.json();
    expect(accessToken).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(user.email).toBe('owner@example.com');
    expect(Date.parse(expiresAt) - h.clock.now()).toBe(90 * 86_400_000);
    const me = await h.app.inject({ method: 'GET', url: '/api/me', headers: bearer(accessToken) });
    expect(me.json().auth).toMatchObject({ type: 'token', tokenId, projectId: null });

    h.clock.advance(5_000);
    const again = await poll(h, d.deviceCode);
    expect(again.json().error.code).toBe('SVC_DEVICE_CODE_INVALID');

    const stored = h.plane.db.prepare('SELECT token_hash FROM access_tokens WHERE id = ?').get(tokenId) as { token_hash: string };
    expect(stored.token_hash).toBe(createHash('sha256').update(accessToken).digest('hex'));
    const dump =
      JSON.stringify(h.plane.db.prepare('SELECT * FROM device_codes').all()) + JSON.stringify(h.plane.db.prepare('SELECT * FROM access_tokens').all());
    expect(dump).not.toContain(accessToken);
    expect(dump).not.toContain(d.deviceCode);
    const kinds = (h.plane.db.prepare('SELECT kind FROM audit_events ORDER BY seq').all() as { kind: string }[]).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['device.approve', 'token.create']));
  });

  it('polling faster than the interval gets SVC_DEVICE_SLOW_DOWN and the interval grows by 5 s', async () => {
    h = await startHarness();
    const d = await start(h);
    expect((await poll(h, d.deviceCode)).json().error.code).toBe('SVC_DEVICE_AUTHORIZATION_PENDING');
    h.clock.advance(1_000);
    const fast = await poll(h, d.deviceCode);
    expect(fast.json().error).toMatchObject({ code: 'SVC_DEVICE_SLOW_DOWN', details: { interval: 10 } });
    h.clock.advance(6_000);
    expect((await poll(h, d.deviceCode)).json().error).toMatchObject({ code: 'SVC_DEVICE_SLOW_DOWN', details: { interval: 15 } });
    h.clock.advance(15_000);
    expect((await poll(h, d.deviceCode)).json().error).toMatchObject({ code: 'SVC_DEVICE_AUTHORIZATION_PENDING', details: { interval: 15 } });
    expect(rows(h, 'access_tokens')).toBe(0);
  });

  it('an expired code cannot be approved or exchanged', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const d = await start(h);
    h.clock.advance(600_000);
    const before = snapshotCounts(h);
    expect((await poll(h, d.deviceCode)).json().error.code).toBe('SVC_DEVICE_EXPIRED');
    const info = await h.app.inject({ method: 'GET', url: `/api/device/info?userCode=${d.userCode}`, headers: { cookie: owner.cookie } });
    expect(info.json().status).toBe('expired');
    const approve = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(approve.json().error.code).toBe('SVC_DEVICE_EXPIRED');
    expect(snapshotCounts(h)).toEqual(before);
  });

  it('a denied code never yields a token and cannot be approved later', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const d = await start(h);
    const deny = await h.app.inject({ method: 'POST', url: '/api/device/deny', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(deny.json().status).toBe('denied');
    h.clock.advance(5_000);
    expect((await poll(h, d.deviceCode)).json().error.code).toBe('SVC_DEVICE_DENIED');
    const approve = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(approve.json().error.code).toBe('SVC_DEVICE_ALREADY_DECIDED');
    expect(rows(h, 'access_tokens')).toBe(0);
  });

  it('approve needs a session with CSRF from the same origin; bearer tokens cannot approve', async () => {
    h = await startHarness();
    const owner = await register(h.app, 'owner@example.com');
    const d = await start(h);
    const before = snapshotCounts(h);
    const noCsrf = await h.app.inject({
      method: 'POST',
      url: '/api/device/approve',
      headers: { cookie: owner.cookie, origin: ORIGIN },
      payload: { userCode: d.userCode },
    });
    expect(noCsrf.json().error.code).toBe('SVC_CSRF_INVALID');
    const crossSite = await h.app.inject({
      method: 'POST',
      url: '/api/device/approve',
      headers: owner.headers({ origin: 'https://evil.example' }),
      payload: { userCode: d.userCode },
    });
    expect(crossSite.json().error.code).toBe('SVC_ORIGIN_REJECTED');
    const anonymous = await h.app.inject({ method: 'POST', url: '/api/device/approve', payload: { userCode: d.userCode } });
    expect(anonymous.json().error.code).toBe('SVC_AUTH_REQUIRED');
    expect(snapshotCounts(h)).toEqual(before);
    // A token obtained elsewhere cannot approve another device.
    const other = await start(h, 'second');
    await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: other.userCode } });
    h.clock.advance(5_000);
    const { accessToken } = (await poll(h, other.deviceCode)).json();
    const viaToken = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: bearer(accessToken), payload: { userCode: d.userCode } });
    expect(viaToken.json().error.code).toBe('SVC_AUTH_REQUIRED');
  });

  it('guessing user codes is rate limited per user and address', async () => {
    h = await startHarness({ deviceCodeTtlSeconds: 1800 });
    const owner = await register(h.app, 'owner@example.com');
    const d = await start(h);
    for (let i = 0; i < 10; i++) {
      const res = await h.app.inject({ method: 'GET', url: `/api/device/info?userCode=BBBB-BBB${'CDFGHJKLMN'[i]}`, headers: { cookie: owner.cookie } });
      expect(res.json().error.code).toBe('SVC_DEVICE_USER_CODE_INVALID');
    }
    // Blocked now, even for the right code, so further guesses learn nothing.
    const blocked = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('SVC_DEVICE_TOO_MANY_ATTEMPTS');
    expect((h.plane.db.prepare('SELECT status FROM device_codes').get() as { status: string }).status).toBe('pending');
    h.clock.advance(10 * 60_000 + 1);
    const later = await h.app.inject({ method: 'POST', url: '/api/device/approve', headers: owner.headers(), payload: { userCode: d.userCode } });
    expect(later.json().status).toBe('approved');
  });

  it('rejects unknown device codes and invalid start bodies without writing', async () => {
    h = await startHarness();
    const before = snapshotCounts(h);
    expect((await poll(h, 'not-a-real-code')).json().error.code).toBe('SVC_DEVICE_CODE_INVALID');
    const empty = await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName: '' } });
    expect(empty.json().error.code).toBe('SVC_VALIDATION');
    const long = await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName: 'x'.repeat(101) } });
    expect(long.json().error.code).toBe('SVC_VALIDATION');
    expect(snapshotCounts(h)).toEqual(before);
  });
});

describe('device login start limit', () => {
  let h: Harness;
  afterEach(async () => h?.close());
  it('limits how many device logins one address can start', async () => {
    h = await startHarness();
    for (let i = 0; i < 60; i++) await start(h, `c${i}`);
    const res = await h.app.inject({ method: 'POST', url: '/api/device/start', payload: { clientName: 'one too many' } });
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('SVC_RATE_LIMITED');
    expect(rows(h, 'device_codes')).toBe(60);
  });
});

describe('device poll decision (pure)', () => {
  const base = { status: 'pending' as const, expiresAt: 600_000, lastPollAt: null, intervalSeconds: 5 };
  it('orders expiry, denial, issue, slow_down and pending as RFC 8628 describes', () => {
    expect(decideDevicePoll(undefined, 0)).toEqual({ kind: 'invalid' });
    expect(decideDevicePoll({ ...base, status: 'consumed' }, 0)).toEqual({ kind: 'invalid' });
    expect(decideDevicePoll({ ...base, status: 'approved' }, 600_000)).toEqual({ kind: 'expired' });
    expect(decideDevicePoll({ ...base, status: 'denied' }, 1)).toEqual({ kind: 'denied' });
    expect(decideDevicePoll({ ...base, status: 'approved', lastPollAt: 0 }, 1)).toEqual({ kind: 'issue' });
    expect(decideDevicePoll({ ...base, lastPollAt: 0 }, 4_999)).toEqual({ kind: 'slow_down', intervalSeconds: 10 });
    expect(decideDevicePoll({ ...base, lastPollAt: 0 }, 5_000)).toEqual({ kind: 'pending' });
  });
  it('normalizes typed user codes and rejects ambiguous characters', () => {
    expect(normalizeUserCode(' bcdf-ghjk ')).toBe('BCDFGHJK');
    expect(normalizeUserCode('BCDF-GHJ0')).toBeNull();
    expect(normalizeUserCode('BCDF-GHJA')).toBeNull();
    expect(normalizeUserCode('BCDF')).toBeNull();
  });
});
