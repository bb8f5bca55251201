// HTTP contract of identity: route paths, header/cookie names and zod schemas of every
// request and response. Shared by the server, the CLI and the console; imports only zod and the
// credential names in core (which the ingress strips, so they are defined once for both).
import { z } from 'zod';

// The browser session's HttpOnly, SameSite=Lax cookie (`__Host-` prefixed on https) and the header
// carrying its CSRF token on state-changing requests.
export {
  PLATFORM_CSRF_HEADER as CSRF_HEADER,
  PLATFORM_SESSION_COOKIE as SESSION_COOKIE,
  PLATFORM_SECURE_SESSION_COOKIE as SECURE_SESSION_COOKIE,
  platformSessionCookie as sessionCookieName,
} from '../core/platform-credentials-names.js';

/** Prefix of every raw access token (`svc_` + 43 base64url chars = 256 random bits). */
export const TOKEN_PREFIX = 'svc_';
/** Default access-token lifetime in days. */
export const DEFAULT_TOKEN_DAYS = 90;

export const identityRoutes = {
  register: '/__svc/auth/register',
  invitedRegister: '/__svc/auth/invited-register',
  login: '/__svc/auth/login',
  logout: '/__svc/auth/logout',
  session: '/__svc/auth/session',
  registration: '/__svc/auth/registration',
  deviceStart: '/api/device/start',
  deviceToken: '/api/device/token',
  deviceInfo: '/api/device/info',
  deviceApprove: '/api/device/approve',
  deviceDeny: '/api/device/deny',
  me: '/api/me',
  tokens: '/api/tokens',
  token: '/api/tokens/:id',
  currentToken: '/api/tokens/current',
  orgs: '/api/orgs',
  orgMembers: '/api/orgs/:id/members',
  orgMember: '/api/orgs/:id/members/:userId',
  orgInvitations: '/api/orgs/:id/invitations',
  /** Server-rendered pages (replaced by the console later). */
  pageLogin: '/login',
  pageRegister: '/register',
  pageDevice: '/device',
} as const;

/** Fill `:name` placeholders of a route path (values are URL-encoded). */
export function routePath(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** Every permission a token or role can carry. `admin` = organization administration (members, deletion). */
export const permissions = ['read', 'deploy', 'rollback', 'audit', 'secrets', 'tokens', 'projects', 'admin'] as const;
export const permissionSchema = z.enum(permissions);
export type Permission = z.infer<typeof permissionSchema>;

export const roles = ['owner', 'admin', 'developer', 'viewer'] as const;
export const roleSchema = z.enum(roles);
export type Role = z.infer<typeof roleSchema>;

export const registrationModes = ['bootstrap', 'public', 'disabled'] as const;
export const registrationModeSchema = z.enum(registrationModes);

const isoTime = z.string().describe('ISO 8601 timestamp');
const email = z.string().trim().toLowerCase().max(254).pipe(z.email());
const password = z.string().min(10).max(256).describe('10 to 256 characters');
const displayName = z.string().trim().min(1).max(100);

export const userSchema = z.object({ id: z.string(), email: z.string(), name: z.string().nullable(), createdAt: isoTime });
export type User = z.infer<typeof userSchema>;

// --- browser auth ---------------------------------------------------------------
export const registerBodySchema = z.object({ email, password, name: displayName.optional() });
export const invitedRegisterBodySchema = z.object({ invitation: z.string().min(1).max(200), email, password, name: displayName.optional() });
export const loginBodySchema = z.object({ email, password: z.string().min(1).max(256) });
/** Response of register, login and session: the user and the CSRF token for state-changing requests. */
export const sessionResponseSchema = z.object({ user: userSchema, csrfToken: z.string() });
export const okResponseSchema = z.object({ ok: z.literal(true) });
export const registrationStatusSchema = z.object({
  mode: registrationModeSchema,
  open: z.boolean().describe('whether POST register would accept a new account now'),
});

// --- device login (RFC 8628 style) -------------------------------------------
export const deviceStartBodySchema = z.object({ clientName: z.string().trim().min(1).max(100) });
export const deviceStartResponseSchema = z.object({
  deviceCode: z.string(),
  userCode: z.string().describe('XXXX-XXXX from BCDFGHJKLMNPQRSTVWXZ'),
  verificationUri: z.string(),
  verificationUriComplete: z.string(),
  expiresIn: z.number().int().describe('seconds'),
  interval: z.number().int().describe('minimum seconds between polls'),
});
export type DeviceStartResponse = z.infer<typeof deviceStartResponseSchema>;
export const deviceTokenBodySchema = z.object({ deviceCode: z.string().min(1).max(200) });
/** Returned exactly once. Other outcomes are errors: SVC_DEVICE_AUTHORIZATION_PENDING, SVC_DEVICE_SLOW_DOWN (details.interval), SVC_DEVICE_EXPIRED, SVC_DEVICE_DENIED, SVC_DEVICE_CODE_INVALID. */
export const deviceTokenResponseSchema = z.object({ accessToken: z.string(), tokenId: z.string(), expiresAt: isoTime, user: userSchema });
export type DeviceTokenResponse = z.infer<typeof deviceTokenResponseSchema>;
export const userCodeSchema = z.string().trim().min(1).max(20);
export const deviceInfoQuerySchema = z.object({ userCode: userCodeSchema });
export const deviceStatusSchema = z.enum(['pending', 'approved', 'denied', 'expired', 'consumed']);
export const deviceInfoResponseSchema = z.object({
  userCode: z.string(),
  clientName: z.string(),
  status: deviceStatusSchema,
  createdAt: isoTime,
  expiresAt: isoTime,
});
export const deviceDecisionBodySchema = z.object({ userCode: userCodeSchema });
export const deviceDecisionResponseSchema = z.object({ userCode: z.string(), clientName: z.string(), status: deviceStatusSchema });

// --- me and tokens ------------------------------------------------------------
export const membershipSchema = z.object({ id: z.string(), name: z.string(), slug: z.string(), role: roleSchema, createdAt: isoTime });
export const meResponseSchema = z.object({
  user: userSchema,
  organizations: z.array(membershipSchema),
  auth: z.object({
    type: z.enum(['session', 'token']),
    tokenId: z.string().nullable(),
    projectId: z.string().nullable(),
    permissions: z.array(permissionSchema).describe('permissions the credential carries (still intersected with the current role per organization)'),
  }),
});
export type MeResponse = z.infer<typeof meResponseSchema>;

export const tokenInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  projectId: z.string().nullable(),
  parentId: z
    .string()
    .nullable()
    .describe('the token that created this one (revoking it revokes this one); null when created from a browser session or device login'),
  permissions: z.array(permissionSchema),
  status: z.enum(['active', 'revoked', 'expired']),
  createdAt: isoTime,
  expiresAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;
export const tokenListResponseSchema = z.object({ tokens: z.array(tokenInfoSchema) });
export const createTokenBodySchema = z.object({
  name: z.string().trim().min(1).max(100),
  projectId: z.string().min(1).max(100).optional().describe('project id or slug; omitted = account-wide'),
  permissions: z.array(permissionSchema).min(1).max(permissions.length),
  expiresInDays: z
    .number()
    .int()
    .min(1)
    .max(365)
    .optional()
    .describe(
      `default ${DEFAULT_TOKEN_DAYS}; when a token creates the token, the default is cut to the creating token's expiry and a longer explicit value is refused (SVC_TOKEN_LIFETIME_EXCEEDED)`,
    ),
});
/** `accessToken` is the raw value, returned only in this response. */
export const createTokenResponseSchema = z.object({ token: tokenInfoSchema, accessToken: z.string() });
export const tokenIdParamsSchema = z.object({ id: z.string().min(1).max(100) });
export const revokeTokenResponseSchema = z.object({ token: tokenInfoSchema });
/** `GET /api/tokens/current`: the token presenting the request (expiry already includes its ancestors'). */
export const currentTokenResponseSchema = z.object({ token: tokenInfoSchema });

// --- organizations -----------------------------------------------------------
export const orgSlugSchema = z.string().min(1).max(100);
export const orgListResponseSchema = z.object({ organizations: z.array(membershipSchema) });
export const createOrgBodySchema = z.object({ name: displayName, slug: orgSlugSchema.optional() });
export const orgResponseSchema = z.object({ organization: membershipSchema });
export const orgParamsSchema = z.object({ id: z.string().min(1).max(100).describe('organization id or slug') });
export const memberSchema = z.object({ userId: z.string(), email: z.string(), name: z.string().nullable(), role: roleSchema, joinedAt: isoTime });
export const memberListResponseSchema = z.object({ members: z.array(memberSchema) });
export const memberParamsSchema = z.object({ id: z.string().min(1).max(100), userId: z.string().min(1).max(100) });
export const updateMemberBodySchema = z.object({ role: roleSchema });
export const memberResponseSchema = z.object({ member: memberSchema });
export const createInvitationBodySchema = z.object({ email, role: roleSchema });
export const invitationSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  email: z.string(),
  role: roleSchema,
  createdAt: isoTime,
  expiresAt: isoTime,
});
/** `invitationToken` is returned only here; `invitationUrl` opens the register page with it. */
export const createInvitationResponseSchema = z.object({ invitation: invitationSchema, invitationToken: z.string(), invitationUrl: z.string() });
