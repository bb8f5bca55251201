import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deployConfigDefaults, parseDeployConfig, readDeployConfig } from '../../src/artifacts/index.js';
import { isSvcError } from '../../src/core/errors.js';
import { cleanupApps, tempDir } from './make-app.js';

afterAll(cleanupApps);

const base = { version: 1, entry: 'dist/server.js' };

function codeOf(raw: unknown): string {
  try {
    parseDeployConfig(raw);
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
  return 'OK';
}

describe('svc.deploy.json schema', () => {
  it('applies every documented default', () => {
    expect(parseDeployConfig(base)).toEqual({
      version: 1,
      entry: 'dist/server.js',
      include: ['dist'],
      build: { command: ['svc', 'build', 'src', 'dist'] },
      database: { path: 'app.db', migrations: 'migrations', allowUnsafeMigrations: false },
      health: { path: '/', timeoutMs: 30_000 },
      env: {},
    });
    expect(deployConfigDefaults.healthTimeoutMs).toBe(30_000);
  });

  it('normalizes paths: "./", trailing "/", duplicates, order', () => {
    const config = parseDeployConfig({ ...base, entry: './dist/server.js', include: ['public/', './dist', 'dist'] });
    expect(config.entry).toBe('dist/server.js');
    expect(config.include).toEqual(['dist', 'public']);
  });

  it.each([
    ['version missing', { entry: 'dist/server.js' }, 'SVC_CONFIG_FIELD_INVALID'],
    ['version 2', { ...base, version: 2 }, 'SVC_CONFIG_UNSUPPORTED_VERSION'],
    ['entry missing', { version: 1 }, 'SVC_CONFIG_ENTRY_INVALID'],
    ['entry TypeScript', { ...base, entry: 'dist/server.ts' }, 'SVC_CONFIG_ENTRY_INVALID'],
    ['entry outside include', { ...base, entry: 'lib/server.js' }, 'SVC_CONFIG_ENTRY_INVALID'],
    ['entry absolute', { ...base, entry: '/srv/dist/server.js' }, 'SVC_CONFIG_ENTRY_INVALID'],
    ['entry traversal', { ...base, entry: 'dist/../../server.js' }, 'SVC_CONFIG_ENTRY_INVALID'],
    ['entry .mjs', { ...base, entry: 'dist/server.mjs' }, 'OK'],
    ['entry is the include itself', { ...base, entry: 'server.js', include: ['server.js'] }, 'OK'],
    ['include glob *', { ...base, include: ['dist/*.js'] }, 'SVC_CONFIG_GLOB_NOT_SUPPORTED'],
    ['include glob **', { ...base, include: ['dist/**'] }, 'SVC_CONFIG_GLOB_NOT_SUPPORTED'],
    ['include glob {}', { ...base, include: ['{dist,lib}'] }, 'SVC_CONFIG_GLOB_NOT_SUPPORTED'],
    ['include negation', { ...base, include: ['dist', '!dist/test'] }, 'SVC_CONFIG_GLOB_NOT_SUPPORTED'],
    ['include absolute', { ...base, include: ['/etc'] }, 'SVC_CONFIG_PATH_INVALID'],
    ['include parent', { ...base, include: ['../other'] }, 'SVC_CONFIG_PATH_INVALID'],
    ['include app dir', { ...base, include: ['.'] }, 'SVC_CONFIG_PATH_INVALID'],
    ['include empty list', { ...base, include: [] }, 'SVC_CONFIG_FIELD_INVALID'],
    ['include .env', { ...base, include: ['dist', '.env.production'] }, 'SVC_CONFIG_FORBIDDEN_PATH'],
    ['include .git', { ...base, include: ['dist', '.git'] }, 'SVC_CONFIG_FORBIDDEN_PATH'],
    ['include key', { ...base, include: ['dist', 'certs/server.key'] }, 'SVC_CONFIG_FORBIDDEN_PATH'],
    ['env PORT', { ...base, env: { PORT: '80' } }, 'SVC_CONFIG_RESERVED_ENV'],
    ['env HOST', { ...base, env: { HOST: '0.0.0.0' } }, 'SVC_CONFIG_RESERVED_ENV'],
    ['env NODE_OPTIONS', { ...base, env: { NODE_OPTIONS: '--inspect' } }, 'SVC_CONFIG_RESERVED_ENV'],
    ['env SVC_ prefix', { ...base, env: { SVC_TOKEN: 'x' } }, 'SVC_CONFIG_RESERVED_ENV'],
    ['env lower-case reserved', { ...base, env: { svc_token: 'x' } }, 'SVC_CONFIG_RESERVED_ENV'],
    ['env bad name', { ...base, env: { 'MY-VAR': 'x' } }, 'SVC_CONFIG_ENV_INVALID'],
    ['env number value', { ...base, env: { A: 1 } }, 'SVC_CONFIG_FIELD_INVALID'],
    ['env allowed', { ...base, env: { NODE_ENV: 'production', PUBLIC_URL: 'https://x' } }, 'OK'],
    ['build.command string', { ...base, build: { command: 'npm run build' } }, 'SVC_CONFIG_BUILD_COMMAND_INVALID'],
    ['build.command empty', { ...base, build: { command: [] } }, 'SVC_CONFIG_BUILD_COMMAND_INVALID'],
    ['build.command non-string', { ...base, build: { command: ['npm', 1] } }, 'SVC_CONFIG_BUILD_COMMAND_INVALID'],
    ['build.command array', { ...base, build: { command: ['npm', 'run', 'build'] } }, 'OK'],
    ['health.path relative', { ...base, health: { path: 'healthz' } }, 'SVC_CONFIG_FIELD_INVALID'],
    ['health.timeoutMs fraction', { ...base, health: { timeoutMs: 1.5 } }, 'SVC_CONFIG_FIELD_INVALID'],
    ['health.timeoutMs too large', { ...base, health: { timeoutMs: 600_001 } }, 'SVC_CONFIG_FIELD_INVALID'],
    ['database.path absolute', { ...base, database: { path: '/var/db.sqlite' } }, 'SVC_CONFIG_PATH_INVALID'],
    ['database.migrations traversal', { ...base, database: { migrations: '../m' } }, 'SVC_CONFIG_PATH_INVALID'],
    ['database.allowUnsafeMigrations string', { ...base, database: { allowUnsafeMigrations: 'yes' } }, 'SVC_CONFIG_FIELD_INVALID'],
    ['unknown top-level field', { ...base, heath: { path: '/' } }, 'SVC_CONFIG_UNKNOWN_FIELD'],
    ['unknown nested field', { ...base, health: { timeout: 5 } }, 'SVC_CONFIG_UNKNOWN_FIELD'],
    ['not an object', ['dist'], 'SVC_CONFIG_FIELD_INVALID'],
  ])('%s → %s', (_name, raw, code) => {
    expect(codeOf(raw)).toBe(code);
  });

  it('names the field and the rule in the error', () => {
    try {
      parseDeployConfig({ ...base, env: { PORT: '80' } });
      expect.unreachable();
    } catch (error) {
      expect(isSvcError(error, 'SVC_CONFIG_RESERVED_ENV')).toBe(true);
      expect((error as { details: { field: string } }).details.field).toBe('env.PORT');
    }
  });
});

describe('readDeployConfig', () => {
  it('reports a missing file, invalid JSON and schema errors with their own codes', async () => {
    const dir = await tempDir();
    await expect(readDeployConfig(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_NOT_FOUND' });
    await writeFile(join(dir, 'svc.deploy.json'), '{ "version": 1, }');
    await expect(readDeployConfig(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_INVALID_JSON' });
    await writeFile(join(dir, 'svc.deploy.json'), JSON.stringify({ version: 1, entry: 'dist/a.js', env: { SVC_X: '1' } }));
    await expect(readDeployConfig(dir)).rejects.toMatchObject({ code: 'SVC_CONFIG_RESERVED_ENV' });
    await writeFile(join(dir, 'svc.deploy.json'), `\ufeff${JSON.stringify(base)}`);
    await expect(readDeployConfig(dir)).resolves.toMatchObject({ entry: 'dist/server.js' });
    await mkdir(join(dir, 'nested'));
    await expect(readDeployConfig(join(dir, 'nested'))).rejects.toMatchObject({ code: 'SVC_CONFIG_NOT_FOUND' });
  });
});
