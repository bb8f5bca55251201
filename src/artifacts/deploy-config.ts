// svc.deploy.json (docs/configuration.md): every rule as zod, defaults applied, errors with one code per rule.
import { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';
import { SvcError } from '../core/errors.js';
import { compareUtf8, forbiddenPathReason, isIncluded, pathShapeViolation } from './path-rules.js';

/** Documented defaults of every optional field (docs/configuration.md). */
export const deployConfigDefaults = {
  include: ['dist'],
  buildCommand: ['svc', 'build', 'src', 'dist'],
  databasePath: 'app.db',
  databaseMigrations: 'migrations',
  allowUnsafeMigrations: false,
  healthPath: '/',
  healthTimeoutMs: 30_000,
} as const;

/** Environment names the platform sets itself; `env` may not use them (compared case-insensitively). */
const RESERVED_ENV_NAMES = ['PORT', 'HOST', 'NODE_OPTIONS'] as const;
/** Prefix reserved for the platform in `env`. */
const RESERVED_ENV_PREFIX = 'SVC_';

/** Whether `name` is reserved in svc.deploy.json `env`. */
function isReservedEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return (RESERVED_ENV_NAMES as readonly string[]).includes(upper) || upper.startsWith(RESERVED_ENV_PREFIX);
}

// Issues carry the stable code in params so parseDeployConfig can report it.
function fail(ctx: z.RefinementCtx, code: ErrorCode, message: string, path: (string | number)[] = []): void {
  ctx.addIssue({ code: 'custom', message, path, params: { svcCode: code } });
}

const globCharacters = /[*?[\]{}]/;

/** Normalize a config path the way users write them: drop "./" and "." segments, repeated and trailing "/". */
function normalizeConfigPath(raw: string): string {
  return raw
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/** A relative path inside the app directory: rejects absolute paths and parent traversal, then normalizes. */
function relativePath() {
  return z
    .string()
    .min(1, 'must not be empty')
    .transform((raw, ctx) => {
      if (raw.startsWith('/') || /^[A-Za-z]:[\\/]/.test(raw))
        return (fail(ctx, 'SVC_CONFIG_PATH_INVALID', 'must be relative to the app directory, not absolute'), z.NEVER);
      if (raw.split(/[\\/]/).includes('..')) return (fail(ctx, 'SVC_CONFIG_PATH_INVALID', 'must not traverse to a parent directory ("..")'), z.NEVER);
      const path = normalizeConfigPath(raw);
      if (path === '' || path === '.')
        return (fail(ctx, 'SVC_CONFIG_PATH_INVALID', 'must name a file or directory below the app directory, not the app directory itself'), z.NEVER);
      const shape = pathShapeViolation(path);
      if (shape) return (fail(ctx, 'SVC_CONFIG_PATH_INVALID', shape.rule), z.NEVER);
      return path;
    });
}

const includePath = z
  .string()
  .transform((raw, ctx) => {
    if (raw.startsWith('!') || globCharacters.test(raw))
      return (fail(ctx, 'SVC_CONFIG_GLOB_NOT_SUPPORTED', `"${raw}" looks like a shell glob; include paths are literal files or directories`), z.NEVER);
    return raw;
  })
  .pipe(relativePath())
  .transform((path, ctx) => {
    const reason = forbiddenPathReason(path);
    if (reason) return (fail(ctx, 'SVC_CONFIG_FORBIDDEN_PATH', `must not name a forbidden file: ${reason}`), z.NEVER);
    if (path === '.svc' || path.startsWith('.svc/'))
      return (fail(ctx, 'SVC_CONFIG_PATH_INVALID', 'must not name .svc (svc keeps local artifacts there)'), z.NEVER);
    return path;
  });

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envSchema = z.record(z.string(), z.string()).superRefine((env, ctx) => {
  const names = Object.keys(env);
  if (names.length > 256) fail(ctx, 'SVC_CONFIG_ENV_INVALID', 'env may hold at most 256 variables');
  for (const name of names) {
    if (!envName.test(name) || name.length > 128)
      fail(ctx, 'SVC_CONFIG_ENV_INVALID', `"${name}" is not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*, at most 128 characters)`, [name]);
    else if (isReservedEnvName(name))
      fail(ctx, 'SVC_CONFIG_RESERVED_ENV', `"${name}" is reserved (PORT, HOST, NODE_OPTIONS and SVC_* are set by the platform)`, [name]);
    const value = env[name] ?? '';
    if (value.includes('\u0000') || value.length > 32_768)
      fail(ctx, 'SVC_CONFIG_ENV_INVALID', `value of "${name}" must be at most 32768 characters without NUL`, [name]);
  }
});

const buildCommand = z
  .array(
    z
      .string()
      .min(1, 'arguments must not be empty')
      .refine((s) => !s.includes('\u0000'), 'arguments must not contain NUL'),
    {
      error: (issue) => (issue.input === undefined ? undefined : 'must be an array of strings such as ["npm","run","build"] (it runs without a shell)'),
    },
  )
  .min(1, 'must name a program')
  .max(256, 'may have at most 256 arguments');

const wholeNumber = (min: number, max: number, unit: string) =>
  z.number().int(`must be a whole number${unit}`).min(min, `must be at least ${min}${unit}`).max(max, `must be at most ${max}${unit}`);

// The artifact header is canonical JSON (integers only), so the normalized error rate is a decimal string.
const errorRate = z.union([z.number(), z.string().regex(/^(?:0|1|0\.[0-9]{1,6})$/, 'must be a fraction from 0 to 1')]).transform((raw, ctx) => {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!(value >= 0 && value <= 1)) return (fail(ctx, 'SVC_CONFIG_FIELD_INVALID', 'must be a fraction from 0 to 1'), z.NEVER);
  return String(Math.round(value * 1e6) / 1e6);
});

/** Optional canary policy (docs/canary.md): stages run in order, then promotion. */
export const canaryPolicySchema = z.strictObject({
  stages: z
    .array(
      z.strictObject({
        trafficPercent: wholeNumber(1, 100, ' percent'),
        durationMs: wholeNumber(100, 86_400_000, ' ms'),
        minimumSamples: wholeNumber(1, 10_000, ' samples'),
      }),
    )
    .min(1, 'must list at least one stage')
    .max(20, 'may list at most 20 stages'),
  /** A fraction such as 0.01 (normalized to the decimal string "0.01", at most 6 decimals). */
  maximumErrorRate: errorRate,
  maximumP95Ms: wholeNumber(1, 600_000, ' ms'),
});

/** zod schema of svc.deploy.json; its output is the normalized configuration with every default applied. */
export const deployConfigSchema = z
  .strictObject({
    version: z.literal(1, { error: 'must be 1 (the only configuration version)' }),
    // Normalized like include paths ("./dist/a.js" → "dist/a.js"); absolute or ".." entries are kept as written and rejected below.
    entry: z
      .string({ error: 'is required: the compiled .js or .mjs file to start, e.g. "dist/server.js"' })
      .transform((raw) => (raw.startsWith('/') || raw.split(/[\\/]/).includes('..') ? raw : normalizeConfigPath(raw))),
    include: z
      .array(includePath)
      .min(1, 'must list at least one file or directory')
      .max(1000, 'may list at most 1000 paths')
      .default([...deployConfigDefaults.include])
      .transform((paths) => [...new Set(paths)].sort(compareUtf8)),
    build: z.strictObject({ command: buildCommand.default([...deployConfigDefaults.buildCommand]) }).prefault({}),
    database: z
      .strictObject({
        path: relativePath().default(deployConfigDefaults.databasePath),
        migrations: relativePath().default(deployConfigDefaults.databaseMigrations),
        allowUnsafeMigrations: z.boolean().default(deployConfigDefaults.allowUnsafeMigrations),
      })
      .prefault({}),
    health: z
      .strictObject({
        path: z
          .string()
          .max(2048, 'must be at most 2048 characters')
          // eslint-disable-next-line no-control-regex
          .regex(/^\/[^\s#\u0000-\u001f\u007f]*$/, 'must start with "/" and contain no whitespace, "#" or control characters')
          .default(deployConfigDefaults.healthPath),
        timeoutMs: z
          .number()
          .int('must be a whole number of milliseconds')
          .min(100, 'must be at least 100 ms')
          .max(600_000, 'must be at most 600000 ms (10 minutes)')
          .default(deployConfigDefaults.healthTimeoutMs),
      })
      .prefault({}),
    env: envSchema.default({}),
    canary: canaryPolicySchema.optional(),
  })
  .superRefine((config, ctx) => {
    const entry = config.entry;
    const shape = pathShapeViolation(entry);
    if (shape) return fail(ctx, 'SVC_CONFIG_ENTRY_INVALID', shape.rule, ['entry']);
    if (!/\.(m?js)$/.test(entry)) return fail(ctx, 'SVC_CONFIG_ENTRY_INVALID', 'must be a compiled .js or .mjs file', ['entry']);
    if (!isIncluded(entry, config.include))
      fail(ctx, 'SVC_CONFIG_ENTRY_INVALID', `"${entry}" must lie inside an included path (${config.include.join(', ')})`, ['entry']);
  });

/** The normalized svc.deploy.json: every optional field has its default, include paths are sorted and unique. */
export type DeployConfig = z.infer<typeof deployConfigSchema>;

/** Validate a parsed svc.deploy.json value; throws SvcError SVC_CONFIG_* naming the field and the rule. */
export function parseDeployConfig(raw: unknown): DeployConfig {
  const result = deployConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  const code = codeForIssue(issue, raw);
  if (issue.code === 'unrecognized_keys') {
    const where = field ? `${field}.` : '';
    const keys = issue.keys.map((k) => `${where}${k}`).join(', ');
    throw new SvcError(code, `svc.deploy.json: unknown field ${keys}`, { details: { field: keys, rule: 'unknown field' } });
  }
  const label = field ? `field "${field}"` : 'the document';
  throw new SvcError(code, `svc.deploy.json: ${label}: ${issue.message}`, { details: { field: field || undefined, rule: issue.message } });
}

function codeForIssue(issue: z.core.$ZodIssue, raw: unknown): ErrorCode {
  const params = (issue as { params?: { svcCode?: ErrorCode } }).params;
  if (params?.svcCode) return params.svcCode;
  if (issue.code === 'unrecognized_keys') return 'SVC_CONFIG_UNKNOWN_FIELD';
  const [first, second] = issue.path;
  if (first === 'version' && typeof raw === 'object' && raw !== null && 'version' in raw) return 'SVC_CONFIG_UNSUPPORTED_VERSION';
  if (first === 'build' && second === 'command') return 'SVC_CONFIG_BUILD_COMMAND_INVALID';
  if (first === 'entry') return 'SVC_CONFIG_ENTRY_INVALID';
  return 'SVC_CONFIG_FIELD_INVALID';
}
