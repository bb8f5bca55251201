import { describe, expect, it } from 'vitest';
import { parsePlatformConfig } from '../../src/core/config.js';
import { SvcError } from '../../src/core/errors.js';

describe('parsePlatformConfig', () => {
  it('has the documented defaults', () => {
    const c = parsePlatformConfig([], {}, '/srv');
    expect(c).toMatchObject({
      listen: { host: '127.0.0.1', port: 7070 },
      dataDir: '/srv/.svc-data',
      registration: 'bootstrap',
      publicUrl: null,
      appDomain: 'localhost',
      logLevel: 'info',
      bodyLimitBytes: 1048576,
      deviceCodeTtlSeconds: 600,
      devicePollIntervalSeconds: 5,
      tokenTtlDays: 90,
      trustProxy: false,
    });
  });

  it('reads SVC_* variables and lets flags win over them', () => {
    const env = {
      SVC_LISTEN: '0.0.0.0:8080',
      SVC_DATA_DIR: '/var/svc',
      SVC_REGISTRATION: 'public',
      SVC_PUBLIC_URL: 'https://svc.example.com/',
      SVC_TRUST_PROXY: 'true',
      OTHER: 'x',
      DOCKER_HOST: 'unix:///run/swarm.sock',
    };
    const c = parsePlatformConfig(['--listen', '[::1]:9000', '--data', 'rel'], env, '/home/u');
    expect(c.listen).toEqual({ host: '::1', port: 9000 });
    expect(c.dataDir).toBe('/home/u/rel');
    expect(c.registration).toBe('public');
    expect(c.publicUrl).toBe('https://svc.example.com');
    expect(c.trustProxy).toBe(true);
    // DOCKER_HOST is the swarm driver's socket under its standard name; other variables stay out.
    expect(c.env).toEqual({
      SVC_LISTEN: '0.0.0.0:8080',
      SVC_DATA_DIR: '/var/svc',
      SVC_REGISTRATION: 'public',
      SVC_PUBLIC_URL: 'https://svc.example.com/',
      SVC_TRUST_PROXY: 'true',
      DOCKER_HOST: 'unix:///run/swarm.sock',
    });
  });

  it.each([
    [['--listen', 'nope'], {}, /SVC_LISTEN/],
    [['--listen', '127.0.0.1:70000'], {}, /port/],
    [[], { SVC_REGISTRATION: 'open' }, /SVC_REGISTRATION/],
    [[], { SVC_PUBLIC_URL: 'ftp://x' }, /SVC_PUBLIC_URL/],
    [[], { SVC_PUBLIC_URL: 'https://x.example/path' }, /SVC_PUBLIC_URL/],
    [[], { SVC_TOKEN_TTL_DAYS: '0' }, /SVC_TOKEN_TTL_DAYS/],
    [['--unknown'], {}, /unknown/i],
  ])('rejects %j %j with SVC_PLATFORM_CONFIG_INVALID', (argv, env, message) => {
    let caught: unknown;
    try {
      parsePlatformConfig(argv, env, '/');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe('SVC_PLATFORM_CONFIG_INVALID');
    expect((caught as SvcError).message).toMatch(message);
  });
});
