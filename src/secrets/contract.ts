// HTTP contract of encrypted secrets and the pure name rules. Shared by the server and the CLI;
// imports only zod. Values go in (PUT) and never come back out of any route.
import { z } from 'zod';

export const secretRoutes = {
  /** GET: names and timestamps only. */
  secrets: '/api/projects/:id/secrets',
  /** PUT `{ value }` creates or replaces; DELETE removes. */
  secret: '/api/projects/:id/secrets/:name',
} as const;

/** Environment-style names: letters, digits, underscore; not starting with a digit. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Largest secret value in bytes (UTF-8). */
export const MAX_SECRET_VALUE_BYTES = 64 * 1024;
/** Most secrets one project may hold in each scope. */
export const MAX_SECRETS_PER_PROJECT = 200;

/**
 * Where a secret is given: `production` to the project's own releases (the default, and every
 * secret set before scopes existed), `preview` to its pull-request previews only. A preview never
 * gets a production secret.
 */
export const SECRET_SCOPES = ['production', 'preview'] as const;
export const secretScopeSchema = z.enum(SECRET_SCOPES);
export type SecretScope = z.infer<typeof secretScopeSchema>;

/** Exact names the platform sets or controls in an app's environment, plus loader and shell names. */
export const RESERVED_SECRET_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'HOST',
  'PORT',
  'NODE_ENV',
  'TRUST_PROXY',
  'NODE_OPTIONS',
  'NODE_PATH',
  'USER',
  'SHELL',
  'PWD',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'TZ',
];
/** Prefixes reserved for the platform (`SVC_*`), Node (`NODE_*`), the dynamic loader (`LD_*`) and npm (`NPM_*`). */
export const RESERVED_SECRET_PREFIXES: readonly string[] = ['SVC_', 'NODE_', 'LD_', 'NPM_'];

/** Why a secret name is not acceptable, or null when it is. Reserved names compare case-insensitively. Pure. */
export function checkSecretName(name: string): 'invalid' | 'reserved' | null {
  if (!SECRET_NAME_PATTERN.test(name)) return 'invalid';
  const upper = name.toUpperCase();
  if (RESERVED_SECRET_NAMES.includes(upper) || RESERVED_SECRET_PREFIXES.some((p) => upper.startsWith(p))) return 'reserved';
  return null;
}

// A UTF-16 surrogate without its pair cannot be encoded as UTF-8.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a value cannot be delivered through an environment variable, or null when it can. Pure. */
export function checkSecretValue(value: string): 'nul' | 'too-large' | 'encoding' | null {
  if (value.includes('\0')) return 'nul';
  if (LONE_SURROGATE.test(value)) return 'encoding';
  if (new TextEncoder().encode(value).length > MAX_SECRET_VALUE_BYTES) return 'too-large';
  return null;
}

const isoTime = z.string().describe('ISO 8601 timestamp');

export const secretInfoSchema = z.object({
  name: z.string(),
  scope: secretScopeSchema.describe('production: the project itself; preview: its pull-request previews only'),
  createdAt: isoTime,
  updatedAt: isoTime.describe('last time the value was replaced'),
});
export type SecretInfo = z.infer<typeof secretInfoSchema>;

export const secretListResponseSchema = z.object({
  secrets: z.array(secretInfoSchema).describe('the secrets of one scope, sorted by name; values are never returned'),
});
export type SecretListResponse = z.infer<typeof secretListResponseSchema>;
/** `?scope=` of every secrets route; absent means production. */
export const secretScopeQuerySchema = z.object({
  scope: secretScopeSchema.default('production').describe('production (default) or preview (given to pull-request previews only)'),
});
export const secretParamsSchema = z.object({ id: z.string().min(1).max(100).describe('project id or slug'), name: z.string().min(1).max(200) });
export const setSecretBodySchema = z.object({
  value: z
    .string()
    .max(MAX_SECRET_VALUE_BYTES * 4)
    .describe('the value (UTF-8, no NUL, at most 64 KiB); write-only'),
});
export const setSecretResponseSchema = z.object({
  secret: secretInfoSchema,
  created: z.boolean().describe('false when an existing value was replaced'),
  effective: z.literal('next-release-or-restart').describe('running apps keep their environment until the next release or supervised restart'),
});
export const deleteSecretResponseSchema = z.object({ deleted: z.literal(true), name: z.string(), scope: secretScopeSchema });
