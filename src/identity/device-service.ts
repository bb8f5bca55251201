import type { FeatureContext } from '../core/feature-context.js';
import { isoTime } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { createAttemptLimiter, type AttemptLimiter } from '../core/rate-limit.js';
import { generateSecret, sha256Hex } from '../core/token-hash.js';
import { appendAudit } from '../audit/append-audit.js';
import { permissions, type DeviceStartResponse, type DeviceTokenResponse } from './contract.js';
import { decideDevicePoll } from './device-poll.js';
import { actorOf, type Principal } from './principal.js';
import { insertAccessToken } from './token-store.js';
import { formatUserCode, generateUserCode, normalizeUserCode } from './user-code.js';
import { getUser, toUser } from './user-store.js';
import { cachedStatement } from '../core/control-db.js';

interface DeviceRow {
  id: string;
  device_code_hash: string;
  user_code: string;
  client_name: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  interval_s: number;
  created_at: number;
  expires_at: number;
  last_poll_at: number | null;
  user_id: string | null;
  token_id: string | null;
}

/** What the approval page shows. */
export interface DeviceReview {
  userCode: string;
  clientName: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';
  createdAt: string;
  expiresAt: string;
}

/** Device login (RFC 8628 flow): start, poll, review, approve, deny; guesses of user codes are rate-limited. */
export interface DeviceService {
  start(clientName: string, origin: string, ip: string): DeviceStartResponse;
  poll(deviceCode: string): DeviceTokenResponse;
  review(principal: Principal, ip: string, userCode: string): DeviceReview;
  decide(principal: Principal, ip: string, userCode: string, decision: 'approve' | 'deny'): DeviceReview;
}

/** Wrong user codes allowed per session and per client address in the window below. */
export const USER_CODE_GUESS_LIMIT = 10;
const GUESS_WINDOW_MS = 10 * 60_000;

/** Device logins one client address may start per window (unauthenticated rows must not grow without bound). */
export const DEVICE_STARTS_PER_WINDOW = 60;

/** Build the device-login service over the control database. */
export function createDeviceService(
  ctx: FeatureContext,
  limiter: AttemptLimiter = createAttemptLimiter({ max: USER_CODE_GUESS_LIMIT, windowMs: GUESS_WINDOW_MS, clock: ctx.clock }),
): DeviceService {
  const startLimiter = createAttemptLimiter({ max: DEVICE_STARTS_PER_WINDOW, windowMs: GUESS_WINDOW_MS, clock: ctx.clock });
  const db = ctx.db;
  const byHash = db.prepare('SELECT * FROM device_codes WHERE device_code_hash = ?');
  const byUserCode = db.prepare('SELECT * FROM device_codes WHERE user_code = ?');

  const review = (row: DeviceRow): DeviceReview => ({
    userCode: formatUserCode(row.user_code),
    clientName: row.client_name,
    status: row.status === 'pending' && ctx.clock.now() >= row.expires_at ? 'expired' : row.status,
    createdAt: isoTime(row.created_at),
    expiresAt: isoTime(row.expires_at),
  });

  // Guess limiting: every unknown code counts against the session and the address; blocked callers learn nothing.
  const lookup = (principal: Principal, ip: string, typed: string): DeviceRow => {
    const keys = [`ip:${ip}`, `user:${principal.user.id}`];
    for (const key of keys) {
      const state = limiter.check(key);
      if (state.blocked) throw new SvcError('SVC_DEVICE_TOO_MANY_ATTEMPTS', undefined, { details: { retryAfterMs: state.retryAfterMs } });
    }
    const code = normalizeUserCode(typed);
    const row = code ? (byUserCode.get(code) as DeviceRow | undefined) : undefined;
    if (!row) {
      for (const key of keys) limiter.fail(key);
      throw new SvcError('SVC_DEVICE_USER_CODE_INVALID');
    }
    return row;
  };

  return {
    start(clientName, origin, ip) {
      const state = startLimiter.check(ip);
      if (state.blocked)
        throw new SvcError('SVC_RATE_LIMITED', 'Too many device logins started from this address.', { details: { retryAfterMs: state.retryAfterMs } });
      startLimiter.fail(ip);
      const now = ctx.clock.now();
      cachedStatement(db, 'DELETE FROM device_codes WHERE expires_at < ?').run(now - 86_400_000);
      const deviceCode = generateSecret('', 32);
      let userCode = generateUserCode();
      for (let i = 0; byUserCode.get(userCode) && i < 10; i++) userCode = generateUserCode();
      const expiresIn = ctx.config.deviceCodeTtlSeconds;
      const interval = ctx.config.devicePollIntervalSeconds;
      cachedStatement(
        db,
        `INSERT INTO device_codes (id, device_code_hash, user_code, client_name, status, interval_s, created_at, expires_at)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?)`,
      ).run(ctx.ids('dev'), sha256Hex(deviceCode), userCode, clientName, interval, now, now + expiresIn * 1000);
      const shown = formatUserCode(userCode);
      return {
        deviceCode,
        userCode: shown,
        verificationUri: `${origin}/device`,
        verificationUriComplete: `${origin}/device?code=${shown}`,
        expiresIn,
        interval,
      };
    },

    poll(deviceCode) {
      const now = ctx.clock.now();
      const row = byHash.get(sha256Hex(deviceCode)) as DeviceRow | undefined;
      const outcome = decideDevicePoll(
        row && { status: row.status, expiresAt: row.expires_at, lastPollAt: row.last_poll_at, intervalSeconds: row.interval_s },
        now,
      );
      switch (outcome.kind) {
        case 'invalid':
          throw new SvcError('SVC_DEVICE_CODE_INVALID');
        case 'expired':
          throw new SvcError('SVC_DEVICE_EXPIRED');
        case 'denied':
          throw new SvcError('SVC_DEVICE_DENIED');
        case 'slow_down':
          cachedStatement(db, 'UPDATE device_codes SET interval_s = ?, last_poll_at = ? WHERE id = ?').run(outcome.intervalSeconds, now, row!.id);
          throw new SvcError('SVC_DEVICE_SLOW_DOWN', `Polled too fast; wait ${outcome.intervalSeconds} s between polls.`, {
            details: { interval: outcome.intervalSeconds },
          });
        case 'pending':
          cachedStatement(db, 'UPDATE device_codes SET last_poll_at = ? WHERE id = ?').run(now, row!.id);
          throw new SvcError('SVC_DEVICE_AUTHORIZATION_PENDING', undefined, { details: { interval: row!.interval_s } });
        case 'issue':
          return db
            .transaction(() => {
              const user = getUser(ctx, row!.user_id!);
              // Only one poll can flip approved → consumed, so the raw token is handed out exactly once.
              const flipped = cachedStatement(db, "UPDATE device_codes SET status = 'consumed', last_poll_at = ? WHERE id = ? AND status = 'approved'").run(
                now,
                row!.id,
              ).changes;
              if (flipped !== 1 || !user) throw new SvcError('SVC_DEVICE_CODE_INVALID');
              const { row: token, accessToken } = insertAccessToken(ctx, { userId: user.id, name: row!.client_name, projectId: null, permissions });
              cachedStatement(db, 'UPDATE device_codes SET token_id = ? WHERE id = ?').run(token.id, row!.id);
              appendAudit(ctx, {
                kind: 'token.create',
                organizationId: user.personal_org_id!,
                actor: { type: 'user', id: user.id, name: user.email },
                metadata: { tokenId: token.id, name: token.name, via: 'device', projectId: null, permissions: [...permissions] },
              });
              return { accessToken, tokenId: token.id, expiresAt: isoTime(token.expires_at), user: toUser(user) };
            })
            .immediate();
      }
    },

    review(principal, ip, userCode) {
      return review(lookup(principal, ip, userCode));
    },

    decide(principal, ip, userCode, decision) {
      const row = lookup(principal, ip, userCode);
      const current = review(row);
      if (current.status === 'expired') throw new SvcError('SVC_DEVICE_EXPIRED');
      if (current.status !== 'pending') throw new SvcError('SVC_DEVICE_ALREADY_DECIDED');
      return db
        .transaction(() => {
          const now = ctx.clock.now();
          const changed = cachedStatement(db, "UPDATE device_codes SET status = ?, user_id = ?, decided_at = ? WHERE id = ? AND status = 'pending'").run(
            decision === 'approve' ? 'approved' : 'denied',
            principal.user.id,
            now,
            row.id,
          ).changes;
          if (changed !== 1) throw new SvcError('SVC_DEVICE_ALREADY_DECIDED');
          appendAudit(ctx, {
            kind: decision === 'approve' ? 'device.approve' : 'device.deny',
            organizationId: principal.user.personal_org_id!,
            actor: actorOf(principal),
            metadata: { clientName: row.client_name, deviceId: row.id },
          });
          return review(byUserCode.get(row.user_code) as DeviceRow);
        })
        .immediate();
    },
  };
}
