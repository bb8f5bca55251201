// The platform's own hosts: recognised by the ingress before any project domain.
import { describe, expect, it } from 'vitest';
import { isIpLiteral } from '../../src/ingress/ip-literal.js';
import { isPlatformHost, platformHostNames } from '../../src/ingress/platform-hosts.js';
import { RouteTable } from '../../src/ingress/route-table.js';

describe('isIpLiteral', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', true],
    ['127.0.0.1:7070', true],
    ['0.0.0.0', true],
    ['127.1', true],
    ['0x7f.0.0.1', true],
    ['2130706433', true],
    ['017700000001', true],
    ['::1', true],
    ['::', true],
    ['[::1]', true],
    ['[::1]:7070', true],
    ['[fe80::1%25eth0]', true],
    ['[not-an-ip]', false],
    ['[::1', false],
    ['[::1]x', false],
    ['example.com', false],
    ['1.example.com', false],
    ['example.com:443', false],
    ['localhost', false],
    ['', false],
  ];
  for (const [value, expected] of table) it(`${value || '(empty)'} → ${expected}`, () => expect(isIpLiteral(value)).toBe(expected));
});

describe('platformHostNames', () => {
  it('lists loopback names plus the public URL host and the listen host when they are names', () => {
    const names = platformHostNames({ publicUrl: 'https://SVC.Example.com', listen: { host: 'node1.internal' } });
    expect([...names].sort()).toEqual(['ip6-localhost', 'ip6-loopback', 'localhost', 'localhost.localdomain', 'node1.internal', 'svc.example.com']);
  });

  it('leaves IP hosts to the shape check', () => {
    const names = platformHostNames({ publicUrl: 'http://[::1]:7070', listen: { host: '0.0.0.0' } });
    expect([...names].sort()).toEqual(['ip6-localhost', 'ip6-loopback', 'localhost', 'localhost.localdomain']);
    expect(platformHostNames({ publicUrl: null, listen: { host: '127.0.0.1' } }).size).toBe(4);
  });
});

describe('isPlatformHost', () => {
  const names = platformHostNames({ publicUrl: 'https://svc.example.com', listen: { host: '127.0.0.1' } });
  it('recognises the platform names and every IP literal, nothing else', () => {
    for (const host of ['svc.example.com', 'localhost', 'localhost.localdomain', '127.0.0.1', '10.0.0.5', '127.1'])
      expect(isPlatformHost(host, names), host).toBe(true);
    for (const host of ['shop.localhost', 'example.com', 'shop.svc.example.com', 'shop.example.org']) expect(isPlatformHost(host, names), host).toBe(false);
  });
});

describe('RouteTable with platform hosts', () => {
  const up = { host: '127.0.0.1', port: 4001 };

  it('matches the platform hosts before any project domain', () => {
    const routes = new RouteTable({ platformHosts: ['svc.example.com'] });
    routes.setProject({ id: 'p1', slug: 'shop' }, up, 'r1');
    expect(() => routes.addDomain('p1', 'SVC.example.com')).toThrow(expect.objectContaining({ code: 'SVC_INGRESS_DOMAIN_RESERVED' }));
    expect(() => routes.addDomain('p1', 'localhost.localdomain')).toThrow(expect.objectContaining({ code: 'SVC_INGRESS_DOMAIN_RESERVED' }));
    for (const host of ['svc.example.com', 'svc.example.com:443', 'SVC.EXAMPLE.COM.', '127.0.0.1:7070', 'localhost:7070'])
      expect(routes.match(host), host).toBeNull();
    expect(routes.match('shop.localhost')?.projectId).toBe('p1');
  });

  it('never routes a platform host that is also a project default host', () => {
    // Apps at <slug>.example.com and the platform at svc.example.com: project "svc" must not take it.
    const routes = new RouteTable({
      baseDomain: 'example.com',
      platformHosts: ['svc.example.com'],
      lookupProject: (s) => (s === 'svc' ? { id: 'p2', slug: 'svc' } : undefined),
    });
    routes.setProject({ id: 'p2', slug: 'svc' }, up, 'r1');
    expect(routes.match('svc.example.com')).toBeNull();
  });
});
