// The pure decision which names a project may never claim as a custom domain.
import { describe, expect, it } from 'vitest';
import { reservedHost, reservedHostMessage, type ReservedReason } from '../../src/projects/reserved-hosts.js';

const rules = { platformNames: ['localhost', 'svc.example.com', 'node1.internal'], appDomain: 'apps.example.net' };

describe('reservedHost', () => {
  const table: [string, ReservedReason | null, string?][] = [
    // the platform's public host, its parents and names under it
    ['svc.example.com', 'platform-host', 'svc.example.com'],
    ['SVC.Example.com.', 'platform-host', 'svc.example.com'],
    ['example.com', 'platform-host', 'svc.example.com'],
    ['login.svc.example.com', 'platform-host', 'svc.example.com'],
    ['a.b.svc.example.com', 'platform-host', 'svc.example.com'],
    // the listen host
    ['node1.internal', 'platform-host', 'node1.internal'],
    ['x.node1.internal', 'platform-host', 'node1.internal'],
    // the app domain, its parents and names under it (projects get <slug>.<app domain> anyway)
    ['apps.example.net', 'app-domain', 'apps.example.net'],
    ['example.net', 'app-domain', 'apps.example.net'],
    ['shop.apps.example.net', 'app-domain', 'apps.example.net'],
    // loopback names
    ['localhost', 'loopback', 'localhost'],
    ['LocalHost.', 'loopback', 'localhost'],
    ['evil.localhost', 'loopback', 'localhost'],
    // IP literals in every form a browser accepts
    ['127.0.0.1', 'ip-address'],
    ['10.1.2.3', 'ip-address'],
    ['127.1', 'ip-address'],
    ['0x7f.0.0.1', 'ip-address'],
    ['2130706433', 'ip-address'],
    ['::1', 'ip-address'],
    ['[::1]', 'ip-address'],
    ['[2001:db8::1]:443', 'ip-address'],
    ['[::ffff:127.0.0.1]', 'ip-address'],
    // ordinary names
    ['shop.example.org', null],
    ['svc.example.com.evil.org', null],
    ['notsvc.example.com', null], // a sibling: neither equal, parent nor child
    ['myexample.com', null],
    ['apps.example.net.co', null],
    ['localhost.example.org', null],
    ['xn--bcher-kva.example', null],
  ];
  for (const [host, reason, overlap] of table) {
    it(`${host} → ${reason ?? 'allowed'}`, () => {
      const got = reservedHost(host, rules);
      expect(got?.reason ?? null).toBe(reason);
      if (overlap !== undefined) expect(got?.overlaps).toBe(overlap);
    });
  }

  it('with the default app domain (localhost) and no public URL, only loopback and IPs are reserved', () => {
    const local = { platformNames: ['localhost', 'localhost.localdomain'], appDomain: 'localhost' };
    expect(reservedHost('shop.localhost', local)?.reason).toBe('loopback');
    expect(reservedHost('localhost.localdomain', local)?.reason).toBe('platform-host');
    expect(reservedHost('shop.example.com', local)).toBeNull();
  });

  it('says which platform name a reserved host overlaps', () => {
    expect(reservedHostMessage('example.com', reservedHost('example.com', rules)!)).toContain('svc.example.com');
    expect(reservedHostMessage('[::1]', reservedHost('[::1]', rules)!)).toContain('IP address');
    expect(reservedHostMessage('x.apps.example.net', reservedHost('x.apps.example.net', rules)!)).toContain('<slug>.apps.example.net');
  });
});
