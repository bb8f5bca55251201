// A local stand-in for GitHub's OIDC side, speaking the real protocol on loopback: the issuer's
// discovery document and JWKS (what the control plane trusts), and the runner's token request
// endpoint (ACTIONS_ID_TOKEN_REQUEST_URL + _TOKEN) that hands the Action a signed ID token.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** The GitHub claims the token endpoint puts into each token (tests change them between runs). */
export interface IssuedClaims {
  repository_id: string;
  repository: string;
  ref: string;
  sha: string;
  run_id: string;
}

export interface LocalIssuer {
  /** http://127.0.0.1:<port> (also the `iss` claim). */
  issuer: string;
  jwksUrl: string;
  /** ACTIONS_ID_TOKEN_REQUEST_URL (already has a query string, as on GitHub). */
  requestUrl: string;
  /** ACTIONS_ID_TOKEN_REQUEST_TOKEN. */
  requestToken: string;
  claims: IssuedClaims;
  /** When true, the token endpoint returns the previous token again (a replay). */
  replay: boolean;
  /** Answer the next N token requests with 503. */
  failNext: number;
  /** Tokens handed out so far, and the audiences requested. */
  issued: string[];
  audiences: string[];
  /** Sign a token directly (for verifier tests); `lifetimeSeconds` default 300. */
  sign(options: {
    audience: string;
    claims?: Record<string, unknown>;
    lifetimeSeconds?: number;
    issuedAt?: number;
    key?: 'trusted' | 'untrusted';
    jti?: string | null;
    issuer?: string;
  }): Promise<string>;
  /** Number of JWKS fetches (to observe caching). */
  jwksFetches(): number;
  close(): Promise<void>;
}

/** Start the issuer on 127.0.0.1:0 with a fresh RS256 key. */
export async function startLocalIssuer(initial: Partial<IssuedClaims> = {}): Promise<LocalIssuer> {
  const trusted = await generateKeyPair('RS256', { extractable: true });
  const untrusted = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(trusted.publicKey)), kid, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const requestToken = `runtime-${randomUUID()}`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer.issuer);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration')
      return send(200, { issuer: issuer.issuer, jwks_uri: issuer.jwksUrl, id_token_signing_alg_values_supported: ['RS256'] });
    if (url.pathname === '/.well-known/jwks') {
      fetches++;
      return send(200, { keys: [jwk] });
    }
    if (url.pathname === '/_apis/token') {
      if (req.headers.authorization !== `Bearer ${requestToken}`) return send(401, { message: 'bad runtime token' });
      if (issuer.failNext > 0) {
        issuer.failNext--;
        return send(503, { message: 'try again' });
      }
      const audience = url.searchParams.get('audience') ?? '';
      issuer.audiences.push(audience);
      if (issuer.replay && issuer.issued.length > 0) return send(200, { value: issuer.issued.at(-1) });
      void issuer.sign({ audience }).then((value) => {
        issuer.issued.push(value);
        send(200, { value });
      });
      return;
    }
    send(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: LocalIssuer = {
    issuer: origin,
    jwksUrl: `${origin}/.well-known/jwks`,
    requestUrl: `${origin}/_apis/token?api-version=2.0`,
    requestToken,
    claims: { repository_id: '4242', repository: 'octo/shop', ref: 'refs/heads/main', sha: 'a'.repeat(40), run_id: '1', ...initial },
    replay: false,
    failNext: 0,
    issued: [],
    audiences: [],
    async sign(options) {
      const now = options.issuedAt ?? Math.floor(Date.now() / 1000);
      const key: CryptoKey = options.key === 'untrusted' ? untrusted.privateKey : trusted.privateKey;
      const jwt = new SignJWT({ ...issuer.claims, ...options.claims })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? origin)
        .setAudience(options.audience)
        .setSubject(`repo:${issuer.claims.repository}:ref:${issuer.claims.ref}`)
        .setIssuedAt(now)
        .setNotBefore(now - 5)
        .setExpirationTime(now + (options.lifetimeSeconds ?? 300));
      if (options.jti !== null) jwt.setJti(options.jti ?? randomUUID());
      return jwt.sign(key);
    },
    jwksFetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return issuer;
}
