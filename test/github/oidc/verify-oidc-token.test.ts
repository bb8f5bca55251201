// OIDC token verification against a real local issuer (discovery + JWKS over loopback HTTP).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { createJwksSource } from '../../../src/github/oidc/jwks-source.js';
import { looksLikeJwt, verifyOidcToken } from '../../../src/github/oidc/verify-oidc-token.js';
import { startLocalIssuer, type LocalIssuer } from '../../action/oidc-issuer.js';

const AUD = 'https://svc.example.com';
let issuer: LocalIssuer;

beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
  return 'resolved';
}

function verify(token: string, options: { audience?: string; now?: number; jwksUrl?: string | null } = {}) {
  const getKey = createJwksSource({ issuer: issuer.issuer, jwksUrl: options.jwksUrl === undefined ? issuer.jwksUrl : options.jwksUrl });
  return verifyOidcToken(token, { getKey, issuer: issuer.issuer, audience: options.audience ?? AUD, now: options.now ?? Date.now() });
}

describe('verifyOidcToken', () => {
  it('accepts a token signed by the JWKS key and returns its GitHub claims', async () => {
    const claims = await verify(await issuer.sign({ audience: AUD }));
    expect(claims).toMatchObject({ iss: issuer.issuer, repository_id: '4242', ref: 'refs/heads/main', sha: 'a'.repeat(40) });
    expect(claims.jti).toMatch(/[0-9a-f-]{36}/);
  });

  it('finds the JWKS through the issuer discovery document when no JWKS URL is configured', async () => {
    await expect(verify(await issuer.sign({ audience: AUD }), { jwksUrl: null })).resolves.toMatchObject({ repository_id: '4242' });
  });

  it('rejects a wrong audience, a wrong issuer, a foreign key, a future nbf and a missing jti', async () => {
    expect(await codeOf(verify(await issuer.sign({ audience: 'https://other.example.com' })))).toBe('SVC_OIDC_TOKEN_INVALID');
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, issuer: 'https://token.actions.githubusercontent.com' })))).toBe('SVC_OIDC_TOKEN_INVALID');
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, key: 'untrusted' })))).toBe('SVC_OIDC_TOKEN_INVALID');
    const future = Math.floor(Date.now() / 1000) + 600;
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, issuedAt: future })))).toBe('SVC_OIDC_TOKEN_INVALID');
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, jti: null })))).toBe('SVC_OIDC_TOKEN_INVALID');
  });

  it('reports an expired token with its own (retryable) code, judged by the injected clock', async () => {
    const token = await issuer.sign({ audience: AUD, lifetimeSeconds: 60 });
    expect(await codeOf(verify(token, { now: Date.now() + 10 * 60_000 }))).toBe('SVC_OIDC_TOKEN_EXPIRED');
  });

  it('refuses tokens living longer than an hour and claims of the wrong shape', async () => {
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, issuedAt: Math.floor(Date.now() / 1000) - 7200, lifetimeSeconds: 9000 })))).toBe(
      'SVC_OIDC_TOKEN_INVALID',
    );
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, claims: { repository_id: 4242 } })))).toBe('SVC_OIDC_TOKEN_INVALID');
    expect(await codeOf(verify(await issuer.sign({ audience: AUD, claims: { sha: 'not-a-sha' } })))).toBe('SVC_OIDC_TOKEN_INVALID');
  });

  it('refuses HMAC-signed tokens and tampered payloads', async () => {
    const hmac = await new SignJWT({ ...issuer.claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(issuer.issuer)
      .setAudience(AUD)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti('x1')
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(await codeOf(verify(hmac))).toBe('SVC_OIDC_TOKEN_INVALID');
    const [h, p, s] = (await issuer.sign({ audience: AUD })).split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, ref: 'refs/heads/prod' })).toString('base64url');
    expect(await codeOf(verify(`${h}.${forged}.${s}`))).toBe('SVC_OIDC_TOKEN_INVALID');
  });

  it('caches the key set across verifications', async () => {
    const getKey = createJwksSource({ issuer: issuer.issuer, jwksUrl: issuer.jwksUrl });
    const before = issuer.jwksFetches();
    for (let i = 0; i < 3; i++) await verifyOidcToken(await issuer.sign({ audience: AUD }), { getKey, issuer: issuer.issuer, audience: AUD, now: Date.now() });
    expect(issuer.jwksFetches() - before).toBe(1);
  });
});

describe('key source failures', () => {
  let broken: Server;
  let brokenUrl: string;
  beforeAll(async () => {
    // An "issuer" whose discovery names another issuer and whose JWKS answers 500.
    broken = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ issuer: 'https://evil.example.com', jwks_uri: `${brokenUrl}/jwks` }));
      }
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => broken.close(() => resolve())));

  it('maps unreachable or inconsistent issuers to SVC_OIDC_UNAVAILABLE', async () => {
    const token = await issuer.sign({ audience: AUD });
    const run = (jwksUrl: string | null, iss: string) =>
      verifyOidcToken(token, { getKey: createJwksSource({ issuer: iss, jwksUrl }), issuer: iss, audience: AUD, now: Date.now() });
    expect(await codeOf(run(null, brokenUrl))).toBe('SVC_OIDC_UNAVAILABLE'); // discovery names another issuer
    expect(await codeOf(run(`${brokenUrl}/jwks`, issuer.issuer))).toBe('SVC_OIDC_UNAVAILABLE'); // JWKS answers 500
    expect(await codeOf(run('http://127.0.0.1:1/jwks', issuer.issuer))).toBe('SVC_OIDC_UNAVAILABLE'); // connection refused
  });
});

describe('looksLikeJwt', () => {
  it('tells compact JWS from svc tokens and junk', async () => {
    expect(looksLikeJwt(await issuer.sign({ audience: AUD }))).toBe(true);
    expect(looksLikeJwt('svc_abcdef')).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('aa.bb.cc.dd')).toBe(false);
  });
});
