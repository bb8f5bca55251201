// Shared helpers for control-plane tests: a real plane on a temp data dir with a manual clock,
// browser sessions via the real register/login routes, device login, row counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { manualClock } from '../../src/core/clock.js';
import { testPlatformConfig, type PlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';
import { CSRF_HEADER } from '../../src/identity/contract.js';

export const ORIGIN = 'http://127.0.0.1:7070';
export const START = Date.parse('2026-03-01T12:00:00.000Z');
export const PASSWORD = 'correct horse battery';

export interface Harness {
  plane: ControlPlane;
  app: FastifyInstance;
  clock: ReturnType<typeof manualClock>;
  dir: string;
  close(): Promise<void>;
}

/** A control plane on a fresh temp data dir (public URL ORIGIN, silent logs, manual clock). */
export async function startHarness(overrides: Partial<PlatformConfig> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-plane-'));
  const clock = manualClock(START);
  const config = testPlatformConfig({ dataDir: join(dir, 'data'), publicUrl: ORIGIN, logLevel: 'silent', ...overrides });
  const plane = await buildControlPlane({ config, clock, logger: createLogger({ level: 'silent' }) });
  return {
    plane,
    app: plane.app,
    clock,
    dir,
    async close() {
      await plane.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  cookie: string;
  csrf: string;
  userId: string;
  email: string;
  /** Headers of a same-origin browser request with CSRF token. */
  headers(extra?: Record<string, string>): Record<string, string>;
}

function browserFrom(res: LightMyRequestResponse, email: string): Browser {
  if (res.statusCode >= 300) throw new Error(`auth failed ${res.statusCode} ${res.body}`);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const body = res.json() as { user: { id: string }; csrfToken: string };
  return {
    cookie,
    csrf: body.csrfToken,
    userId: body.user.id,
    email,
    headers: (extra = {}) => ({ cookie, [CSRF_HEADER]: body.csrfToken, origin: ORIGIN, ...extra }),
  };
}

/** Register through POST /__svc/auth/register (or invited-register) and return the browser session. */
export async function register(app: FastifyInstance, email: string, invitation?: string): Promise<Browser> {
  const res = await app.inject({
    method: 'POST',
    url: invitation ? '/__svc/auth/invited-register' : '/__svc/auth/register',
    headers: { origin: ORIGIN },
    payload: { email, password: PASSWORD, ...(invitation ? { invitation } : {}) },
  });
  return browserFrom(res, email);
}

/** Sign in through POST /__svc/auth/login. */
export async function login(app: FastifyInstance, email: string): Promise<Browser> {
  const res = await app.inject({ method: 'POST', url: '/__svc/auth/login', headers: { origin: ORIGIN }, payload: { email, password: PASSWORD } });
  return browserFrom(res, email);
}

/** Invite `email` into `orgId` with `role` (as `inviter`) and register the invitee. */
export async function invite(app: FastifyInstance, inviter: Browser, orgId: string, email: string, role: string): Promise<Browser> {
  const res = await app.inject({ method: 'POST', url: `/api/orgs/${orgId}/invitations`, headers: inviter.headers(), payload: { email, role } });
  if (res.statusCode !== 201) throw new Error(`invite failed ${res.body}`);
  return register(app, email, (res.json() as { invitationToken: string }).invitationToken);
}

/** Create a token through POST /api/tokens with a browser session. */
export async function createToken(app: FastifyInstance, browser: Browser, body: Record<string, unknown>): Promise<{ accessToken: string; id: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/tokens', headers: browser.headers(), payload: body });
  if (res.statusCode !== 201) throw new Error(`token failed ${res.body}`);
  const json = res.json() as { accessToken: string; token: { id: string } };
  return { accessToken: json.accessToken, id: json.token.id };
}

/** The personal organization id of the signed-in user. */
export async function personalOrg(app: FastifyInstance, browser: Browser): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/api/orgs', headers: { cookie: browser.cookie } });
  return (res.json() as { organizations: { id: string }[] }).organizations[0]!.id;
}

/** Create a project as `browser`. */
export async function createProject(
  app: FastifyInstance,
  browser: Browser,
  body: Record<string, unknown>,
): Promise<{ id: string; slug: string; organizationId: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/projects', headers: browser.headers(), payload: body });
  if (res.statusCode !== 201) throw new Error(`project failed ${res.body}`);
  return (res.json() as { project: { id: string; slug: string; organizationId: string } }).project;
}

/** Row count of a control-database table. */
export function rows(harness: Harness, table: string): number {
  return (harness.plane.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** Row counts of every table that a rejected request must leave unchanged. */
export function snapshotCounts(harness: Harness): Record<string, number> {
  const tables = ['users', 'organizations', 'memberships', 'sessions', 'access_tokens', 'device_codes', 'invitations', 'projects', 'audit_events'];
  return Object.fromEntries(tables.map((t) => [t, rows(harness, t)]));
}

/** Bearer headers. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
