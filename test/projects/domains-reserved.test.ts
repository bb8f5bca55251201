// Reserved hosts: no project — whoever owns it — may claim the platform's own host, a parent or a
// child of it, the app domain, loopback names or IP literals; stored rows for such names are never
// routed and never get a certificate.
import { afterEach, describe, expect, it } from 'vitest';
import { buildControlPlane } from '../../src/platform.js';
import { insertDomain } from '../../src/projects/domains-store.js';
import { startHarness, type Harness } from '../platform/harness.js';
import { createProjectAt, inviteAt, registerAt, type PublicBrowser } from './public-host-session.js';

const PUBLIC = 'https://svc.example.com';
const TOKEN = 'edge-ask-token-0123456789';
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function harness(): Promise<Harness> {
  const h = await startHarness({
    publicUrl: PUBLIC,
    appDomain: 'apps.example.net',
    listen: { host: 'node1.internal', port: 7070 },
    env: { SVC_TLS_ASK_TOKEN: TOKEN },
  });
  open.push(h);
  return h;
}

function addDomain(h: Harness, who: PublicBrowser, projectId: string, domain: string) {
  return h.app.inject({ method: 'POST', url: `/api/projects/${projectId}/domains`, headers: who.headers(), payload: { domain } });
}

function domainRows(h: Harness): string[] {
  return (h.plane.db.prepare('SELECT domain FROM project_domains ORDER BY domain').all() as { domain: string }[]).map((r) => r.domain);
}

const ask = (h: Harness, domain: string) => h.app.inject({ method: 'GET', url: `/_svc/tls/ask?domain=${encodeURIComponent(domain)}&token=${TOKEN}` });

describe('reserved hosts as custom domains', () => {
  it('a viewer cannot claim the platform host, its parent or a name under it from her own workspace', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const viewer = await inviteAt(h.app, PUBLIC, owner, 'viewer@example.com', 'viewer');
    const mine = await createProjectAt(h.app, viewer, 'mine');
    for (const domain of ['svc.example.com', 'SVC.example.com.', 'example.com', 'login.svc.example.com']) {
      const res = await addDomain(h, viewer, mine.id, domain);
      expect(res.statusCode, domain).toBe(409);
      expect(res.json().error.code, domain).toBe('SVC_DOMAIN_RESERVED');
      expect(res.json().error.message, domain).toContain('svc.example.com');
    }
    expect(domainRows(h)).toEqual([]);
    expect(h.plane.ingress.routes.match('svc.example.com')).toBeNull();
    expect(h.plane.db.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE kind = 'domain.add'").get()).toEqual({ n: 0 });
    // The refusal is about the name, not her role: a domain of her own works.
    expect((await addDomain(h, viewer, mine.id, 'mine.example.org')).statusCode).toBe(201);
  });

  it('the owner cannot either', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const project = await createProjectAt(h.app, owner, 'shop');
    for (const domain of ['svc.example.com', 'example.com', 'x.svc.example.com']) {
      expect((await addDomain(h, owner, project.id, domain)).json().error?.code, domain).toBe('SVC_DOMAIN_RESERVED');
    }
  });

  it('refuses IP literals, loopback names, the app domain and the listen host; a normal domain still works', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const project = await createProjectAt(h.app, owner, 'shop');
    const reserved = [
      '127.0.0.1',
      '10.0.0.7',
      '127.1',
      '::1',
      '[::1]',
      '[2001:db8::1]',
      'localhost',
      'LOCALHOST.',
      'other.localhost',
      'localhost.localdomain',
      'apps.example.net',
      'example.net',
      'shop.apps.example.net',
      'other.apps.example.net',
      'node1.internal',
      'a.node1.internal',
    ];
    for (const domain of reserved) {
      const res = await addDomain(h, owner, project.id, domain);
      expect(res.json().error?.code, domain).toBe('SVC_DOMAIN_RESERVED');
    }
    expect(domainRows(h)).toEqual([]);

    const ok = await addDomain(h, owner, project.id, 'Shop.Example.ORG');
    expect(ok.statusCode, ok.body).toBe(201);
    expect(h.plane.ingress.routes.match('shop.example.org')?.projectId).toBe(project.id);
    expect((await ask(h, 'shop.example.org')).statusCode).toBe(200);
  });

  it('the edge lookup never approves a platform host, even one a project row claims', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const project = await createProjectAt(h.app, owner, 'shop');
    // Rows written before these rules existed (or by hand): the API refuses them now.
    for (const domain of ['svc.example.com', 'example.com', 'login.svc.example.com'])
      insertDomain(h.plane.context, { domain, project_id: project.id, created_by: null, created_at: 0 });
    for (const domain of ['svc.example.com', 'example.com', 'login.svc.example.com', 'localhost', '127.0.0.1', 'node1.internal']) {
      const res = await ask(h, domain);
      expect(res.statusCode, domain).toBe(404);
      expect(res.json().error.code, domain).toBe('SVC_TLS_ASK_UNKNOWN_DOMAIN');
    }
    expect((await ask(h, 'shop.apps.example.net')).statusCode).toBe(200); // the project's default host
    // Such rows stay listed so that they can be removed.
    const removed = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/domains/svc.example.com`, headers: owner.headers() });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(domainRows(h)).toEqual(['example.com', 'login.svc.example.com']);
  });

  it('stored rows for reserved names are not routed after a restart', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const project = await createProjectAt(h.app, owner, 'shop');
    expect((await addDomain(h, owner, project.id, 'shop.example.org')).statusCode).toBe(201);
    for (const domain of ['svc.example.com', 'example.com']) insertDomain(h.plane.context, { domain, project_id: project.id, created_by: null, created_at: 0 });
    await h.plane.close();
    const again = await buildControlPlane({ config: h.plane.context.config, logger: h.plane.context.logger });
    try {
      expect(again.ingress.routes.match('svc.example.com')).toBeNull();
      expect(again.ingress.routes.match('example.com')).toBeNull();
      expect(again.ingress.routes.match('shop.example.org')?.projectId).toBe(project.id);
    } finally {
      await again.close();
    }
  });
});

describe('one project per domain', () => {
  it('is enforced by the database and reported as SVC_DOMAIN_TAKEN', async () => {
    const h = await harness();
    const owner = await registerAt(h.app, PUBLIC, 'admin@example.com');
    const a = await createProjectAt(h.app, owner, 'site-a');
    const b = await createProjectAt(h.app, owner, 'site-b');
    expect((await addDomain(h, owner, a.id, 'www.example.org')).statusCode).toBe(201);
    const clash = await addDomain(h, owner, b.id, 'WWW.Example.org.');
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('SVC_DOMAIN_TAKEN');
    // Below the API's own check, the primary key refuses a second holder with the same code.
    expect(() => insertDomain(h.plane.context, { domain: 'www.example.org', project_id: b.id, created_by: null, created_at: 0 })).toThrow(
      expect.objectContaining({ code: 'SVC_DOMAIN_TAKEN' }),
    );
    expect(h.plane.db.prepare('SELECT project_id FROM project_domains WHERE domain = ?').all('www.example.org')).toEqual([{ project_id: a.id }]);
  });
});
