// Where the issuer's signing keys come from: SVC_OIDC_JWKS_URL, or the `jwks_uri` of the issuer's
// discovery document (fetched once, then cached). jose caches the key set and refetches it when a
// token names an unknown `kid` (at most every 30 s), so GitHub's key rotation needs no restart.
// jose is imported by the first OIDC token, not at start-up (most control planes never see one).
import type { JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';

export interface JwksSourceOptions {
  issuer: string;
  /** Explicit JWKS URL; null = discovery (`<issuer>/.well-known/openid-configuration`). */
  jwksUrl: string | null;
  /** fetch used for discovery and JWKS requests (tests may pass one bound to a local server). */
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout (default 5 s). */
  timeoutMs?: number;
}

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.url({ protocol: /^https?$/ }) });

/** A jose key resolver for tokens of `issuer`; failures to reach the issuer become SVC_OIDC_UNAVAILABLE. */
export function createJwksSource(options: JwksSourceOptions): JWTVerifyGetKey {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let keys: Promise<JWTVerifyGetKey> | null = null;
  const resolveKeys = (): Promise<JWTVerifyGetKey> => {
    keys ??= (async () => {
      const url = options.jwksUrl ?? (await discoverJwksUrl(options.issuer, fetchImpl, timeoutMs));
      const { createRemoteJWKSet, customFetch } = await import('jose');
      return createRemoteJWKSet(new URL(url), { timeoutDuration: timeoutMs, [customFetch]: fetchImpl });
    })();
    // A failed discovery is retried on the next token instead of being cached.
    keys.catch(() => (keys = null));
    return keys;
  };
  return async (header, token) => {
    const { errors } = await import('jose');
    try {
      return await (
        await resolveKeys()
      )(header, token);
    } catch (error) {
      if (error instanceof SvcError) throw error;
      // No key with this kid (after a refetch) means a bad token, not an outage.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported)
        throw error;
      throw new SvcError('SVC_OIDC_UNAVAILABLE', `Could not fetch the OIDC signing keys: ${(error as Error).message}`, { cause: error });
    }
  };
}

/** Read `jwks_uri` from the issuer's discovery document; its `issuer` must be the configured one. */
async function discoverJwksUrl(issuer: string, fetchImpl: typeof globalThis.fetch, timeoutMs: number): Promise<string> {
  const url = `${issuer}/.well-known/openid-configuration`;
  let body: unknown;
  try {
    const response = await fetchImpl(url, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    body = await response.json();
  } catch (error) {
    throw new SvcError('SVC_OIDC_UNAVAILABLE', `Could not read the OIDC discovery document: ${(error as Error).message}`, { cause: error });
  }
  const parsed = discoverySchema.safeParse(body);
  if (!parsed.success) throw new SvcError('SVC_OIDC_UNAVAILABLE', `${url} is not an OIDC discovery document (needs issuer and jwks_uri).`);
  if (parsed.data.issuer.replace(/\/+$/, '') !== issuer)
    throw new SvcError('SVC_OIDC_UNAVAILABLE', `${url} names issuer ${parsed.data.issuer}, not ${issuer}.`);
  return parsed.data.jwks_uri;
}
