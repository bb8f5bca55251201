// Browser sessions on a plane whose SVC_PUBLIC_URL is a DNS name: the shared harness signs in with
// the loopback origin, which the same-origin check refuses once the public URL is something else.
import type { FastifyInstance } from 'fastify';
import { CSRF_HEADER } from '../../src/identity/contract.js';
import { PASSWORD } from '../platform/harness.js';

/** A signed-in browser at `origin`. */
export interface PublicBrowser {
  userId: string;
  headers(extra?: Record<string, string>): Record<string, string>;
}

/** Register (first account = bootstrap, or with an invitation) through the real route. */
export async function registerAt(app: FastifyInstance, origin: string, email: string, invitation?: string): Promise<PublicBrowser> {
  const res = await app.inject({
    method: 'POST',
    url: invitation ? '/__svc/auth/invited-register' : '/__svc/auth/register',
    headers: { origin },
    payload: { email, password: PASSWORD, ...(invitation ? { invitation } : {}) },
  });
  if (res.statusCode >= 300) throw new Error(`register failed ${res.statusCode} ${res.body}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const body = res.json() as { user: { id: string }; csrfToken: string };
  return { userId: body.user.id, headers: (extra = {}) => ({ cookie, [CSRF_HEADER]: body.csrfToken, origin, ...extra }) };
}

/** Invite `email` into the inviter's personal organization with `role` and register the invitee. */
export async function inviteAt(app: FastifyInstance, origin: string, inviter: PublicBrowser, email: string, role: string): Promise<PublicBrowser> {
  const orgs = await app.inject({ method: 'GET', url: '/api/orgs', headers: inviter.headers() });
  const orgId = (orgs.json() as { organizations: { id: string }[] }).organizations[0]!.id;
  const res = await app.inject({ method: 'POST', url: `/api/orgs/${orgId}/invitations`, headers: inviter.headers(), payload: { email, role } });
  if (res.statusCode !== 201) throw new Error(`invite failed ${res.body}`);
  return registerAt(app, origin, email, (res.json() as { invitationToken: string }).invitationToken);
}

/** Create a project in the caller's personal organization. */
export async function createProjectAt(
  app: FastifyInstance,
  browser: PublicBrowser,
  slug: string,
): Promise<{ id: string; slug: string; organizationId: string }> {
  const res = await app.inject({ method: 'POST', url: '/api/projects', headers: browser.headers(), payload: { name: slug, slug } });
  if (res.statusCode !== 201) throw new Error(`project failed ${res.body}`);
  return (res.json() as { project: { id: string; slug: string; organizationId: string } }).project;
}
