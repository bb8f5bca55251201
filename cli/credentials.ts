// Stored login for the CLI: ~/.svc/config.json (mode 0600, written atomically), plus the
// SVC_SERVER / SVC_TOKEN overrides that CI uses instead of a stored login.
import { chmod, mkdir } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../src/core/atomic-write.js';
import { SvcError } from '../src/core/errors.js';
import { readOptionalFile } from './read-optional-file.js';

/** The server used when neither --server, SVC_SERVER nor a stored login names one (spec: {base_url}). */
export const DEFAULT_SERVER = 'http://127.0.0.1:7070';

const storedConfigSchema = z.object({
  version: z.literal(1),
  server: z.string().min(1),
  token: z.string().min(1).optional(),
  tokenId: z.string().min(1).optional(),
  account: z.string().optional(),
  savedAt: z.string().optional(),
});

/** The contents of ~/.svc/config.json. `token` belongs to `server` only and is never sent elsewhere. */
export type StoredConfig = z.infer<typeof storedConfigSchema>;

/** Where credentials come from: an explicit home directory and environment (injectable for tests). */
export interface CredentialEnv {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The server and token a command should use, and where each came from. */
export interface ResolvedCredentials {
  server: string;
  token: string | undefined;
  serverSource: 'flag' | 'env' | 'config' | 'default';
  tokenSource: 'env' | 'config' | 'none';
}

/** Path of the CLI config file under `home`. */
export function configPath(home: string): string {
  return join(home, '.svc', 'config.json');
}

/** True for hosts that never leave this machine: 127.0.0.0/8, ::1, localhost and *.localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);
  return false;
}

/**
 * Parse and check a server URL; returns its origin (no trailing slash).
 * HTTPS is required unless the host is loopback (spec: remote servers must use HTTPS).
 */
export function validateServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SvcError('SVC_INVALID_SERVER_URL', `Not a valid server URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SvcError('SVC_INVALID_SERVER_URL', `Server URL must use https:// (got ${url.protocol})`);
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new SvcError('SVC_INVALID_SERVER_URL', 'Server URL must be an origin such as https://svc.example.com (no path, query or credentials)');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new SvcError(
      'SVC_INSECURE_SERVER_URL',
      `Refusing plain HTTP to ${url.hostname}: remote servers must use https:// (loopback HTTP is allowed for development)`,
    );
  }
  return url.origin;
}

/** Read ~/.svc/config.json; undefined when it does not exist, SVC_CLI_CREDENTIALS_INVALID when it is corrupt. */
export async function readStoredConfig(home: string): Promise<StoredConfig | undefined> {
  const text = await readOptionalFile(configPath(home));
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_CLI_CREDENTIALS_INVALID', `${configPath(home)} is not valid JSON`);
  }
  const parsed = storedConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new SvcError('SVC_CLI_CREDENTIALS_INVALID', `${configPath(home)} has an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Atomically write ~/.svc/config.json with mode 0600 inside a 0700 directory. */
export async function writeStoredConfig(home: string, config: StoredConfig): Promise<void> {
  const dir = join(home, '.svc');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = configPath(home);
  await atomicWriteFile(path, `${JSON.stringify(storedConfigSchema.parse(config), null, 2)}\n`, { mode: 0o600 });
  // open(..., 0o600) is masked by the umask; chmod makes the mode exact whatever the umask.
  await chmod(path, 0o600);
}

/** Forget the stored token but keep the server so the next `svc login` defaults to it. */
export async function clearStoredToken(home: string): Promise<void> {
  const current = await readStoredConfig(home);
  if (!current) return;
  await writeStoredConfig(home, { version: 1, server: current.server });
}

/**
 * Decide which server and token to use: --server flag, then SVC_SERVER, then the stored login, then the default.
 * SVC_TOKEN overrides the stored token; a stored token is used only for the server it was issued by.
 */
export function resolveCredentials(stored: StoredConfig | undefined, env: CredentialEnv['env'], serverFlag?: string): ResolvedCredentials {
  const envServer = env.SVC_SERVER?.trim() || undefined;
  const envToken = env.SVC_TOKEN?.trim() || undefined;
  let server: string;
  let serverSource: ResolvedCredentials['serverSource'];
  if (serverFlag !== undefined) {
    server = validateServerUrl(serverFlag);
    serverSource = 'flag';
  } else if (envServer) {
    server = validateServerUrl(envServer);
    serverSource = 'env';
  } else if (stored) {
    server = validateServerUrl(stored.server);
    serverSource = 'config';
  } else {
    server = DEFAULT_SERVER;
    serverSource = 'default';
  }
  if (envToken) return { server, token: envToken, serverSource, tokenSource: 'env' };
  if (stored?.token && sameOrigin(stored.server, server)) return { server, token: stored.token, serverSource, tokenSource: 'config' };
  return { server, token: undefined, serverSource, tokenSource: 'none' };
}

/** Read the stored config and resolve the credentials in one step. */
export async function loadCredentials(where: CredentialEnv, serverFlag?: string): Promise<ResolvedCredentials> {
  return resolveCredentials(await readStoredConfig(where.home), where.env, serverFlag);
}

/** Like loadCredentials but throws SVC_NOT_LOGGED_IN when no token is available. */
export async function requireCredentials(where: CredentialEnv, serverFlag?: string): Promise<ResolvedCredentials & { token: string }> {
  const creds = await loadCredentials(where, serverFlag);
  if (!creds.token) throw new SvcError('SVC_NOT_LOGGED_IN', `Not logged in to ${creds.server}: run \`svc login\` or set SVC_TOKEN`);
  return { ...creds, token: creds.token };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
