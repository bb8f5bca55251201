import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import {
  clearStoredToken,
  configPath,
  DEFAULT_SERVER,
  isLoopbackHost,
  readStoredConfig,
  requireCredentials,
  resolveCredentials,
  validateServerUrl,
  writeStoredConfig,
} from '../../cli/credentials.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isSvcError(error) ? error.code : `non-svc: ${String(error)}`;
  }
  return undefined;
}

describe('server URL validation', () => {
  it.each(['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', 'LOCALHOST'])('treats %s as loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com', '[::2]', '0.0.0.0'])('treats %s as remote', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
  it('allows https anywhere and http on loopback, normalising to the origin', () => {
    expect(validateServerUrl('https://svc.example.com/')).toBe('https://svc.example.com');
    expect(validateServerUrl('http://127.0.0.1:7070')).toBe('http://127.0.0.1:7070');
    expect(validateServerUrl('http://[::1]:8080/')).toBe('http://[::1]:8080');
    expect(validateServerUrl('http://my.localhost:1')).toBe('http://my.localhost:1');
  });
  it('refuses plain http to a remote host', () => {
    expect(codeOf(() => validateServerUrl('http://svc.example.com'))).toBe('SVC_INSECURE_SERVER_URL');
    expect(codeOf(() => validateServerUrl('http://10.1.2.3:7070'))).toBe('SVC_INSECURE_SERVER_URL');
    expect(codeOf(() => validateServerUrl('http://localhost.evil.com'))).toBe('SVC_INSECURE_SERVER_URL');
  });
  it('rejects garbage, other schemes, paths and embedded credentials', () => {
    for (const raw of ['not a url', 'ftp://x.example', 'https://x.example/api', 'https://u:p@x.example', 'https://x.example/?a=1']) {
      expect(codeOf(() => validateServerUrl(raw))).toBe('SVC_INVALID_SERVER_URL');
    }
  });
});

describe('credential resolution', () => {
  const stored = { version: 1 as const, server: 'https://a.example', token: 'svc_stored' };
  it('uses the stored login by default', () => {
    expect(resolveCredentials(stored, {})).toMatchObject({ server: 'https://a.example', token: 'svc_stored', serverSource: 'config', tokenSource: 'config' });
  });
  it('lets SVC_TOKEN and SVC_SERVER override the stored login', () => {
    expect(resolveCredentials(stored, { SVC_TOKEN: 'svc_env', SVC_SERVER: 'https://b.example' })).toMatchObject({
      server: 'https://b.example',
      token: 'svc_env',
      tokenSource: 'env',
    });
  });
  it('never sends the stored token to a different server', () => {
    expect(resolveCredentials(stored, { SVC_SERVER: 'https://b.example' })).toMatchObject({
      server: 'https://b.example',
      token: undefined,
      tokenSource: 'none',
    });
    expect(resolveCredentials(stored, {}, 'https://c.example')).toMatchObject({ token: undefined });
  });
  it('falls back to the default server and validates SVC_SERVER', () => {
    expect(resolveCredentials(undefined, {})).toMatchObject({ server: DEFAULT_SERVER, token: undefined, serverSource: 'default' });
    expect(codeOf(() => resolveCredentials(undefined, { SVC_SERVER: 'http://remote.example' }))).toBe('SVC_INSECURE_SERVER_URL');
  });
});

describe('config file', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-cred-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('writes ~/.svc/config.json with mode 0600 in a 0700 directory and reads it back', async () => {
    const old = process.umask(0o000);
    try {
      await writeStoredConfig(home, { version: 1, server: 'http://127.0.0.1:1', token: 'svc_x', tokenId: 'tok_1' });
    } finally {
      process.umask(old);
    }
    expect((await stat(configPath(home))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, '.svc'))).mode & 0o777).toBe(0o700);
    expect(await readStoredConfig(home)).toMatchObject({ server: 'http://127.0.0.1:1', token: 'svc_x', tokenId: 'tok_1' });
  });

  it('returns undefined without a file, rejects a corrupt one with SVC_CLI_CREDENTIALS_INVALID', async () => {
    expect(await readStoredConfig(home)).toBeUndefined();
    await mkdir(join(home, '.svc'));
    await writeFile(configPath(home), '{nope');
    await expect(readStoredConfig(home)).rejects.toMatchObject({ code: 'SVC_CLI_CREDENTIALS_INVALID' });
    await writeFile(configPath(home), JSON.stringify({ version: 2, server: 'x' }));
    await expect(readStoredConfig(home)).rejects.toMatchObject({ code: 'SVC_CLI_CREDENTIALS_INVALID' });
  });

  it('clearing the token keeps the server for the next login', async () => {
    await writeStoredConfig(home, { version: 1, server: 'https://a.example', token: 'svc_x' });
    await clearStoredToken(home);
    const text = await readFile(configPath(home), 'utf8');
    expect(text).not.toContain('svc_x');
    expect(JSON.parse(text)).toEqual({ version: 1, server: 'https://a.example' });
  });

  it('requireCredentials fails with SVC_NOT_LOGGED_IN when there is no token', async () => {
    await expect(requireCredentials({ home, env: {} })).rejects.toMatchObject({ code: 'SVC_NOT_LOGGED_IN' });
    await expect(requireCredentials({ home, env: { SVC_TOKEN: 'svc_ci' } })).resolves.toMatchObject({ token: 'svc_ci', server: DEFAULT_SERVER });
  });
});
