import { describe, expect, it } from 'vitest';
import { HostMatcher, normalizeHost } from '../../src/ingress/host-matcher.js';
import { isReservedPath } from '../../src/ingress/reserved-paths.js';

describe('normalizeHost', () => {
  it('lowercases, drops the port and a trailing dot', () => {
    expect(normalizeHost('App.LocalHost:7070')).toBe('app.localhost');
    expect(normalizeHost('app.localhost.')).toBe('app.localhost');
    expect(normalizeHost('app.localhost')).toBe('app.localhost');
    expect(normalizeHost('127.0.0.1:7070')).toBe('127.0.0.1');
  });

  it('converts Unicode names to their IDNA (punycode) form', () => {
    expect(normalizeHost('bücher.example:443')).toBe('xn--bcher-kva.example');
    expect(normalizeHost('XN--BCHER-KVA.example')).toBe('xn--bcher-kva.example');
  });

  it('rejects what can never be a project host', () => {
    for (const bad of [
      '',
      '[::1]:7070',
      'a b.localhost',
      'app.localhost:port',
      'app..localhost',
      '-app.localhost',
      'x'.repeat(300),
      'a/b.localhost',
      'app_x.localhost',
    ]) {
      expect(normalizeHost(bad), bad).toBeNull();
    }
  });
});

describe('HostMatcher', () => {
  it('routes <slug>.<baseDomain> and custom domains, case- and port-insensitively', () => {
    const m = new HostMatcher('Apps.Example.com');
    m.setDefault('p1', 'shop');
    expect(m.defaultHost('shop')).toBe('shop.apps.example.com');
    expect(m.resolve(normalizeHost('SHOP.apps.example.com:8443')!)).toBe('p1');
    expect(m.addDomain('p1', 'Shop.Example.ORG.')).toBe('shop.example.org');
    expect(m.resolve('shop.example.org')).toBe('p1');
    expect(m.hostsOf('p1')).toEqual(['shop.apps.example.com', 'shop.example.org']);
  });

  it('moves the default host when the slug changes and keeps it on removeDomain', () => {
    const m = new HostMatcher();
    m.setDefault('p1', 'old');
    m.setDefault('p1', 'new');
    expect(m.resolve('old.localhost')).toBeUndefined();
    expect(m.resolve('new.localhost')).toBe('p1');
    expect(m.removeDomain('new.localhost')).toBe(false);
    expect(m.resolve('new.localhost')).toBe('p1');
  });

  it('refuses a domain routed to another project and invalid domains', () => {
    const m = new HostMatcher();
    m.addDomain('p1', 'a.example.com');
    expect(() => m.addDomain('p2', 'A.example.com')).toThrow(expect.objectContaining({ code: 'SVC_INGRESS_DOMAIN_TAKEN' }));
    for (const bad of ['localhost', '1.2.3.4', 'exa mple.com', '[::1]'])
      expect(() => m.addDomain('p2', bad), bad).toThrow(expect.objectContaining({ code: 'SVC_INGRESS_DOMAIN_INVALID' }));
    expect(m.removeDomain('a.example.com')).toBe(true);
    expect(m.resolve('a.example.com')).toBeUndefined();
  });

  it('recognises slug candidates only one label under the base domain', () => {
    const m = new HostMatcher();
    expect(m.slugCandidate('app.localhost')).toBe('app');
    expect(m.slugCandidate('a.b.localhost')).toBeNull();
    expect(m.slugCandidate('localhost')).toBeNull();
    expect(m.slugCandidate('app.example.com')).toBeNull();
  });
});

describe('isReservedPath', () => {
  it('matches the control-plane paths exactly, with or without a query', () => {
    for (const p of ['/livez', '/healthz', '/readyz', '/_svc/readyz', '/_svc/tls/ask?domain=x', '/readyz?x=1', '/_svc'])
      expect(isReservedPath(p), p).toBe(true);
    for (const p of ['/', '/livez/', '/livezz', '/api/x', '/__svc/manifest', '/_svcx', '/health', '/r']) expect(isReservedPath(p), p).toBe(false);
  });
});
