// app.yml asks for exactly the events and permissions svc uses, and nothing more.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { githubBaseUrl, parseGithubConfig } from '../../src/github/github-config.js';
import { appCredentials } from '../support/fake-github/app-credentials.js';

const manifest = parse(readFileSync(join(import.meta.dirname, '..', '..', 'app.yml'), 'utf8')) as {
  default_events: string[];
  default_permissions: Record<string, string>;
  hook_attributes: { url: string };
};

describe('app.yml', () => {
  it('subscribes the events svc handles', () => {
    expect([...manifest.default_events].sort()).toEqual(['check_run', 'check_suite', 'issue_comment', 'pull_request', 'push']);
    expect(manifest.hook_attributes.url).toMatch(/\/api\/github\/webhooks$/);
  });
  it('asks for the least permissions', () => {
    expect(manifest.default_permissions).toEqual({
      metadata: 'read',
      contents: 'read',
      checks: 'write',
      deployments: 'write',
      issues: 'write',
      pull_requests: 'read',
    });
  });
});

describe('GitHub App configuration (probot conventions)', () => {
  const creds = appCredentials(77);
  it('is off without APP_ID and fails closed on bad values', () => {
    expect(parseGithubConfig({})).toBeNull();
    expect(() => parseGithubConfig({ APP_ID: 'abc', PRIVATE_KEY: creds.privateKeyPem, WEBHOOK_SECRET: 's' })).toThrow(
      expect.objectContaining({ code: 'SVC_GITHUB_CONFIG_INVALID' }),
    );
    expect(() => parseGithubConfig({ APP_ID: '77', WEBHOOK_SECRET: 's' })).toThrow(expect.objectContaining({ code: 'SVC_GITHUB_CONFIG_INVALID' }));
    expect(() => parseGithubConfig({ APP_ID: '77', PRIVATE_KEY: 'not a key', WEBHOOK_SECRET: 's' })).toThrow(
      expect.objectContaining({ code: 'SVC_GITHUB_CONFIG_INVALID' }),
    );
    expect(() => parseGithubConfig({ APP_ID: '77', PRIVATE_KEY: creds.privateKeyPem })).toThrow(expect.objectContaining({ code: 'SVC_GITHUB_CONFIG_INVALID' }));
    expect(() => parseGithubConfig({ APP_ID: '77', PRIVATE_KEY: creds.privateKeyPem, WEBHOOK_SECRET: 's', GHE_HOST: 'https://ghe.example.com' })).toThrow(
      expect.objectContaining({ code: 'SVC_GITHUB_CONFIG_INVALID' }),
    );
  });
  it('builds the API base URL from GHE_HOST and GHE_PROTOCOL, and accepts a one-line PRIVATE_KEY', () => {
    expect(githubBaseUrl(undefined)).toBe('https://api.github.com');
    expect(githubBaseUrl('ghe.example.com')).toBe('https://ghe.example.com/api/v3');
    const config = parseGithubConfig({
      APP_ID: '77',
      PRIVATE_KEY: creds.privateKeyPem.replace(/\n/g, '\\n'),
      WEBHOOK_SECRET: 's',
      GHE_HOST: '127.0.0.1:4010',
      GHE_PROTOCOL: 'http',
    });
    expect(config).toMatchObject({ appId: 77, baseUrl: 'http://127.0.0.1:4010/api/v3', buildTimeoutMs: 3_600_000, throttle: true });
    expect(config!.privateKey).toBe(`${creds.privateKeyPem.trim()}\n`);
  });
});
