// Control-plane configuration: flags override SVC_* environment variables, which override
// defaults; everything is validated with zod so a bad value fails start-up with a clear error.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { SvcError } from './errors.js';

export const registrationModeValues = ['bootstrap', 'public', 'disabled'] as const;
export const logLevelValues = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Everything the control plane needs to start; built by parsePlatformConfig or by tests directly. */
export interface PlatformConfig {
  listen: { host: string; port: number };
  /** Absolute path of the data directory (control DB, project roots, keys). */
  dataDir: string;
  registration: (typeof registrationModeValues)[number];
  /** Origin users reach the platform at (no trailing slash); null = derive from each request's Host. */
  publicUrl: string | null;
  /** Apps are served at `<slug>.<appDomain>`. */
  appDomain: string;
  logLevel: (typeof logLevelValues)[number];
  /** Largest accepted JSON body in bytes. */
  bodyLimitBytes: number;
  deviceCodeTtlSeconds: number;
  devicePollIntervalSeconds: number;
  tokenTtlDays: number;
  sessionTtlHours: number;
  /** Trust X-Forwarded-* from a reverse proxy in front of the platform. */
  trustProxy: boolean;
  /** GitHub Actions OIDC issuer trusted for uploads (null = OIDC uploads off). */
  oidcIssuer: string | null;
  /** OIDC JWKS URL (null = the issuer's discovery document's jwks_uri). */
  oidcJwksUrl: string | null;
  /** Expected OIDC `aud` (null = publicUrl, else the origin the request was sent to). */
  oidcAudience: string | null;
  /** The raw SVC_* environment (and DOCKER_HOST), for features that read their own settings. */
  env: Readonly<Record<string, string | undefined>>;
}

const listenSchema = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'expected host:port')
  .transform((value) => {
    const at = value.lastIndexOf(':');
    const host = value.slice(0, at).replace(/^\[|\]$/g, '');
    return { host, port: Number(value.slice(at + 1)) };
  })
  .refine((l) => l.port >= 0 && l.port <= 65535, 'port must be 0–65535');

const publicUrlSchema = z
  .url({ protocol: /^https?$/ })
  .transform((value) => new URL(value))
  .refine((u) => u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password, 'must be an origin such as https://svc.example.com')
  .transform((u) => u.origin);

const intFromString = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Every setting svc-platform reads at start-up; docs/configuration.md's table is generated from it (npm run docs:settings). */
export const platformSettingsSchema = z.object({
  // Defaults are given as input values (prefault) so the documented default is the text a user would write.
  listen: listenSchema.prefault('127.0.0.1:7070'),
  dataDir: z.string().min(1).default('.svc-data'),
  registration: z.enum(registrationModeValues).default('bootstrap'),
  publicUrl: publicUrlSchema.optional(),
  appDomain: z
    .string()
    .regex(/^[a-z0-9.-]+$/)
    .default('localhost'),
  logLevel: z.enum(logLevelValues).default('info'),
  bodyLimitBytes: intFromString(1024, 64 * 1024 * 1024).default(1024 * 1024),
  deviceCodeTtlSeconds: intFromString(30, 3600).default(600),
  devicePollIntervalSeconds: intFromString(1, 60).default(5),
  tokenTtlDays: intFromString(1, 365).default(90),
  sessionTtlHours: intFromString(1, 24 * 90).default(24 * 14),
  trustProxy: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .prefault('false'),
  // OIDC issuer: "off" disables OIDC uploads; http is accepted for loopback test issuers.
  oidcIssuer: z
    .union([z.literal('off').transform(() => null), z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''))])
    .prefault('https://token.actions.githubusercontent.com'),
  oidcJwksUrl: z.url({ protocol: /^https?$/ }).optional(),
  oidcAudience: z.string().min(1).max(500).optional(),
});

/** Environment variable → config key; flags use the kebab-case names in `flagNames`. */
export const envNames = {
  listen: 'SVC_LISTEN',
  dataDir: 'SVC_DATA_DIR',
  registration: 'SVC_REGISTRATION',
  publicUrl: 'SVC_PUBLIC_URL',
  appDomain: 'SVC_APP_DOMAIN',
  logLevel: 'SVC_LOG_LEVEL',
  bodyLimitBytes: 'SVC_BODY_LIMIT_BYTES',
  deviceCodeTtlSeconds: 'SVC_DEVICE_CODE_TTL_SECONDS',
  devicePollIntervalSeconds: 'SVC_DEVICE_POLL_INTERVAL_SECONDS',
  tokenTtlDays: 'SVC_TOKEN_TTL_DAYS',
  sessionTtlHours: 'SVC_SESSION_TTL_HOURS',
  trustProxy: 'SVC_TRUST_PROXY',
  oidcIssuer: 'SVC_OIDC_ISSUER',
  oidcJwksUrl: 'SVC_OIDC_JWKS_URL',
  oidcAudience: 'SVC_OIDC_AUDIENCE',
} as const satisfies Record<keyof z.input<typeof platformSettingsSchema>, string>;

export const flagNames = {
  listen: 'listen',
  dataDir: 'data',
  registration: 'registration',
  publicUrl: 'public-url',
  logLevel: 'log-level',
} as const;

/** Parse flags (`--listen host:port --data dir ...`) and SVC_* variables into a PlatformConfig. */
/** Settings read under their standard names besides SVC_*: the swarm driver's daemon socket. */
const PASSED_THROUGH = new Set(['DOCKER_HOST']);

export function parsePlatformConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): PlatformConfig {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.values(flagNames).map((name) => [name, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new SvcError('SVC_PLATFORM_CONFIG_INVALID', (error as Error).message);
  }
  const input: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(envNames)) {
    const fromFlag = (flagNames as Record<string, string>)[key];
    const value = (fromFlag ? flags[fromFlag] : undefined) ?? env[name];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const parsed = platformSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const source =
      key in envNames ? `${envNames[key as keyof typeof envNames]}${key in flagNames ? ` / --${flagNames[key as keyof typeof flagNames]}` : ''}` : key;
    throw new SvcError('SVC_PLATFORM_CONFIG_INVALID', `${source}: ${issue.message}`);
  }
  const svcEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('SVC_') || PASSED_THROUGH.has(name)));
  return {
    ...parsed.data,
    dataDir: resolve(cwd, parsed.data.dataDir),
    publicUrl: parsed.data.publicUrl ?? null,
    oidcJwksUrl: parsed.data.oidcJwksUrl ?? null,
    oidcAudience: parsed.data.oidcAudience ?? null,
    env: svcEnv,
  };
}

/** A complete config for tests and embedding: defaults plus overrides (never reads the process env). */
export function testPlatformConfig(overrides: Partial<PlatformConfig> & { dataDir: string }): PlatformConfig {
  return { ...parsePlatformConfig([], {}, overrides.dataDir), ...overrides };
}
