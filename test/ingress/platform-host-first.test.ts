// Over a real listener: the platform's own hosts are answered by the control plane even when a
// project row claims one, so an admin's login and session cookie never reach an app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { CSRF_HEADER, SECURE_SESSION_COOKIE } from '../../src/identity/contract.js';
import { insertDomain } from '../../src/projects/domains-store.js';
import { startListeningPlane, startUpstream, type ListeningPlane, type UpstreamProcess } from './support.js';

const PUBLIC = 'https://svc.example.test';
let plane: ListeningPlane;
let app: UpstreamProcess;
let projectId: string;

async function send(path: string, host: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await request(`${plane.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { host, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function appRequests(): Promise<number> {
  const res = await request(`http://127.0.0.1:${app.port}/stats`);
  return ((await res.body.json()) as { requests: number }).requests;
}

beforeAll(async () => {
  [plane, app] = await Promise.all([startListeningPlane({ publicUrl: PUBLIC }), startUpstream('A')]);
  // The first account and a project, through the real routes on the platform host.
  const registered = await send('/__svc/auth/register', 'svc.example.test', {
    method: 'POST',
    headers: { origin: PUBLIC },
    body: { email: 'admin@example.com', password: 'correct horse battery' },
  });
  expect(registered.status, registered.text).toBe(201);
  const cookie = String(registered.headers['set-cookie']).split(';')[0]!;
  const csrf = registered.json().csrfToken as string;
  const created = await send('/api/projects', 'svc.example.test', {
    method: 'POST',
    headers: { origin: PUBLIC, cookie, [CSRF_HEADER]: csrf },
    body: { name: 'Mine', slug: 'mine' },
  });
  expect(created.status, created.text).toBe(201);
  projectId = (created.json().project as { id: string }).id;
  plane.plane.ingress.routes.setProject({ id: projectId, slug: 'mine' }, { host: '127.0.0.1', port: app.port }, 'rel_a');
  // A row claiming the platform host (written before the domain rules, or by hand), loaded as at start.
  insertDomain(plane.plane.context, { domain: 'svc.example.test', project_id: projectId, created_by: null, created_at: 0 });
  plane.plane.domains.load();
}, 60_000);

afterAll(async () => {
  await plane?.close();
  await app?.stop();
});

describe('platform hosts come before project domains', () => {
  it('answers the login on the public host itself, so the app never sees the password or the cookie', async () => {
    const before = await appRequests();
    const login = await send('/__svc/auth/login', `svc.example.test:${plane.port}`, {
      method: 'POST',
      headers: { origin: PUBLIC },
      body: { email: 'admin@example.com', password: 'correct horse battery' },
    });
    expect(login.status, login.text).toBe(200);
    // The public URL is https: the session cookie is the host-only `__Host-` one.
    // Exactly these attributes, in any order (no Domain: host-only).
    const [pair, ...attributes] = String(login.headers['set-cookie']).split('; ');
    expect(pair).toMatch(new RegExp(`^${SECURE_SESSION_COOKIE}=[^;]+$`));
    expect(attributes.map((a) => a.replace(/^Max-Age=\d+$/, 'Max-Age=n')).sort()).toEqual(['HttpOnly', 'Max-Age=n', 'Path=/', 'SameSite=Lax', 'Secure']);
    const session = await send('/whoami', 'SVC.Example.TEST.', { headers: { cookie: pair! } });
    expect(session.text).not.toContain('"name":"A"');
    expect(await appRequests()).toBe(before + 1); // only our own /stats call
  });

  it('answers loopback names and IP literals itself', async () => {
    const before = await appRequests();
    for (const host of [`127.0.0.1:${plane.port}`, `localhost:${plane.port}`, `[::1]:${plane.port}`, 'localhost.localdomain']) {
      const res = await send('/whoami', host);
      expect(res.text, host).not.toContain('"name":"A"');
    }
    expect(await appRequests()).toBe(before + 1);
  });

  it('still routes the project default host to the app', async () => {
    const res = await send('/whoami', `mine.localhost:${plane.port}`);
    expect(res.json().name).toBe('A');
  });
});
