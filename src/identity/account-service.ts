import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import { createAttemptLimiter } from '../core/rate-limit.js';
import { sha256Hex } from '../core/token-hash.js';
import { appendAudit } from '../audit/append-audit.js';
import { addMember } from './org-store.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password-hash.js';
import { createSession } from './session-store.js';
import { countUsers, findUserByEmail, insertUser, type UserRow } from './user-store.js';
import { cachedStatement } from '../core/control-db.js';

export interface NewSession {
  user: UserRow;
  cookieValue: string;
  csrfToken: string;
  expiresAt: number;
}

interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: 'owner' | 'admin' | 'developer' | 'viewer';
  expires_at: number;
  accepted_at: number | null;
}

/** Account creation and sign-in; each returns a fresh browser session. */
export interface AccountService {
  registrationOpen(): boolean;
  register(input: { email: string; password: string; name?: string | undefined }): Promise<NewSession>;
  registerInvited(input: { invitation: string; email: string; password: string; name?: string | undefined }): Promise<NewSession>;
  login(input: { email: string; password: string }, ip: string): Promise<NewSession>;
}

const LOGIN_FAILURES_PER_WINDOW = 10;

/** Build the account service (registration modes, invitations, password sign-in with a failure limit). */
export function createAccountService(ctx: FeatureContext): AccountService {
  const loginLimiter = createAttemptLimiter({ max: LOGIN_FAILURES_PER_WINDOW, windowMs: 15 * 60_000, clock: ctx.clock });
  const system = { type: 'system' as const, id: 'registration' };

  const registrationOpen = (): boolean => {
    if (ctx.config.registration === 'public') return true;
    if (ctx.config.registration === 'disabled') return false;
    return countUsers(ctx) === 0;
  };

  const newSession = (user: UserRow): NewSession => ({ user, ...createSession(ctx, user.id) });

  return {
    registrationOpen,

    async register(input) {
      if (!registrationOpen()) throw new SvcError('SVC_REGISTRATION_CLOSED');
      const passwordHash = await hashPassword(input.password);
      // Re-check inside the write transaction: two concurrent bootstrap registrations cannot both win.
      return ctx.db
        .transaction(() => {
          if (!registrationOpen()) throw new SvcError('SVC_REGISTRATION_CLOSED');
          if (findUserByEmail(ctx, input.email)) throw new SvcError('SVC_EMAIL_TAKEN');
          const user = insertUser(ctx, { email: input.email, name: input.name ?? null, passwordHash });
          appendAudit(ctx, {
            kind: 'account.register',
            organizationId: user.personal_org_id!,
            actor: { ...system, name: ctx.config.registration },
            metadata: { userId: user.id, mode: ctx.config.registration },
          });
          return newSession(user);
        })
        .immediate();
    },

    async registerInvited(input) {
      const find = cachedStatement(ctx.db, 'SELECT * FROM invitations WHERE token_hash = ?');
      const check = (): InvitationRow => {
        const row = find.get(sha256Hex(input.invitation)) as InvitationRow | undefined;
        if (!row || row.accepted_at !== null || row.expires_at <= ctx.clock.now() || row.email !== input.email.toLowerCase()) {
          throw new SvcError('SVC_INVITATION_INVALID');
        }
        if (findUserByEmail(ctx, input.email)) throw new SvcError('SVC_EMAIL_TAKEN');
        return row;
      };
      check();
      const passwordHash = await hashPassword(input.password);
      return ctx.db
        .transaction(() => {
          const invitation = check();
          const user = insertUser(ctx, { email: input.email, name: input.name ?? null, passwordHash });
          addMember(ctx, invitation.organization_id, user.id, invitation.role);
          cachedStatement(ctx.db, 'UPDATE invitations SET accepted_at = ?, accepted_by = ? WHERE id = ?').run(ctx.clock.now(), user.id, invitation.id);
          appendAudit(ctx, {
            kind: 'account.register',
            organizationId: user.personal_org_id!,
            actor: { ...system, name: 'invitation' },
            metadata: { userId: user.id, mode: 'invitation' },
          });
          appendAudit(ctx, {
            kind: 'member.join',
            organizationId: invitation.organization_id,
            actor: { type: 'user', id: user.id, name: user.email },
            metadata: { userId: user.id, role: invitation.role, invitationId: invitation.id },
          });
          return newSession(user);
        })
        .immediate();
    },

    async login(input, ip) {
      const key = `${ip}|${input.email.toLowerCase()}`;
      const state = loginLimiter.check(key);
      if (state.blocked) throw new SvcError('SVC_RATE_LIMITED', 'Too many failed sign-ins; wait and retry.', { details: { retryAfterMs: state.retryAfterMs } });
      const user = findUserByEmail(ctx, input.email);
      const ok = await verifyPassword(input.password, user?.password_hash ?? (await dummyPasswordHash));
      if (!user || !ok) {
        loginLimiter.fail(key);
        throw new SvcError('SVC_AUTH_INVALID_CREDENTIALS');
      }
      return newSession(user);
    },
  };
}
