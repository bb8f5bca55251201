// GitHub App settings, following probot's conventions: APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH,
// WEBHOOK_SECRET, and GHE_HOST + GHE_PROTOCOL for GitHub Enterprise Server (also how tests point svc
// at a local server playing GitHub's API). Parsed with zod; missing credentials = integration off.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';

export interface GithubConfig {
  appId: number;
  privateKey: string;
  webhookSecret: string;
  /** REST API base, e.g. https://api.github.com or http://127.0.0.1:4000/api/v3. */
  baseUrl: string;
  /** A queued svc/release check without an upload is completed as timed_out after this long. */
  buildTimeoutMs: number;
  /** How often overdue checks are swept. */
  sweepIntervalMs: number;
  /** Octokit's write throttling (GitHub's guidance: one write per second); off only for tests. */
  throttle: boolean;
  /** `uses:` reference of the svc Action shown in the timed-out help. */
  actionRef: string;
}

const envSchema = z.object({
  APP_ID: z.string().regex(/^[1-9][0-9]{0,15}$/, 'must be the numeric App ID'),
  WEBHOOK_SECRET: z.string().min(1, 'is required'),
  GHE_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, 'must be a host name with an optional port, without protocol')
    .optional(),
  GHE_PROTOCOL: z.enum(['http', 'https']).default('https'),
  SVC_GITHUB_BUILD_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(3600),
  SVC_GITHUB_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  SVC_GITHUB_THROTTLE: z.enum(['true', 'false']).default('true'),
  SVC_GITHUB_ACTION_REF: z.string().min(1).max(200).default('svc-dev/svc/action@v1'),
});

/** The REST base URL for an optional GHE host (probot: `${GHE_PROTOCOL}://${GHE_HOST}/api/v3`). Pure. */
export function githubBaseUrl(host: string | undefined, protocol: 'http' | 'https' = 'https'): string {
  return host ? `${protocol}://${host}/api/v3` : 'https://api.github.com';
}

/** The configuration from an environment, or null when no GitHub App is configured (no APP_ID). */
export function parseGithubConfig(env: Readonly<Record<string, string | undefined>>): GithubConfig | null {
  const present = (name: string) => env[name] !== undefined && env[name] !== '';
  if (!present('APP_ID')) return null;
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(clean);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SvcError('SVC_GITHUB_CONFIG_INVALID', `${String(issue.path[0])}: ${issue.message}`);
  }
  const data = parsed.data;
  return {
    appId: Number(data.APP_ID),
    privateKey: readPrivateKey(env),
    webhookSecret: data.WEBHOOK_SECRET,
    baseUrl: githubBaseUrl(data.GHE_HOST, data.GHE_PROTOCOL),
    buildTimeoutMs: data.SVC_GITHUB_BUILD_TIMEOUT_SECONDS * 1000,
    sweepIntervalMs: data.SVC_GITHUB_SWEEP_SECONDS * 1000,
    throttle: data.SVC_GITHUB_THROTTLE === 'true',
    actionRef: data.SVC_GITHUB_ACTION_REF,
  };
}

// PRIVATE_KEY may hold the PEM with literal "\n" (one-line env files), as probot accepts.
function readPrivateKey(env: Readonly<Record<string, string | undefined>>): string {
  let key = env.PRIVATE_KEY;
  if (!key && env.PRIVATE_KEY_PATH) {
    try {
      key = readFileSync(env.PRIVATE_KEY_PATH, 'utf8');
    } catch (error) {
      throw new SvcError('SVC_GITHUB_CONFIG_INVALID', `PRIVATE_KEY_PATH: cannot read ${env.PRIVATE_KEY_PATH}: ${(error as Error).message}`);
    }
  }
  if (!key) throw new SvcError('SVC_GITHUB_CONFIG_INVALID', 'PRIVATE_KEY or PRIVATE_KEY_PATH is required with APP_ID');
  key = key.replace(/\\n/g, '\n').trim();
  if (!/^-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+-----END (RSA )?PRIVATE KEY-----$/.test(key)) {
    throw new SvcError('SVC_GITHUB_CONFIG_INVALID', 'PRIVATE_KEY is not a PEM private key (download it from the app settings)');
  }
  return `${key}\n`;
}
