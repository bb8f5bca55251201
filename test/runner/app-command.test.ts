import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { buildAppCommand, checkEntry } from '../../runner/app-command.js';
import type { AppStartSpec } from '../../runner/app-runner.js';

const spec: AppStartSpec = {
  projectId: 'proj_1',
  releaseId: 'rel_1',
  releaseDir: '/srv/p/releases/rel_1',
  entry: 'dist/server.mjs',
  dataDir: '/srv/p/data',
  databasePath: '/srv/p/data/app.db',
  env: { GREETING: 'hi', NODE_ENV: 'development' },
  secrets: { API_KEY: 's3cr3t' },
};
const ctx = {
  nodePath: '/usr/bin/node',
  port: 4100,
  host: '127.0.0.1',
  baseEnv: {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: '/root',
    SVC_PLATFORM_MASTER_KEY: 'k',
    SVC_TOKEN: 't',
    AWS_SECRET_ACCESS_KEY: 'x',
    NODE_OPTIONS: '--inspect',
  },
};

describe('buildAppCommand', () => {
  it('is exactly `node <entry>` in the release directory with a clean environment', () => {
    expect(buildAppCommand(spec, ctx)).toEqual({
      file: '/usr/bin/node',
      args: ['dist/server.mjs'],
      cwd: '/srv/p/releases/rel_1',
      replaceEnv: true,
      env: {
        PATH: '/usr/bin:/bin',
        LANG: 'C.UTF-8',
        HOME: '/srv/p/data',
        GREETING: 'hi',
        API_KEY: 's3cr3t',
        PORT: '4100',
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        SVC_PROJECT_ID: 'proj_1',
        SVC_RELEASE_ID: 'rel_1',
        SVC_DATA_DIR: '/srv/p/data',
        SVC_DATABASE_PATH: '/srv/p/data/app.db',
      },
    });
  });

  it('never puts secret values in argv', () => {
    const cmd = buildAppCommand(spec, ctx);
    expect(cmd.args.join(' ')).not.toContain('s3cr3t');
    expect(cmd.file).not.toContain('s3cr3t');
  });

  it.each([['PORT'], ['HOST'], ['NODE_OPTIONS'], ['SVC_X'], ['bad-name']])('rejects env name %s', (name) => {
    expect(() => buildAppCommand({ ...spec, env: { [name]: 'x' } }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });

  it.each([['PATH'], ['HOME'], ['HOST'], ['PORT'], ['NODE_ENV'], ['TRUST_PROXY'], ['SVC_TOKEN']])('rejects secret name %s', (name) => {
    expect(() => buildAppCommand({ ...spec, secrets: { [name]: 'x' } }, ctx)).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });
});

describe('checkEntry', () => {
  it('accepts relative .js/.mjs inside the release and normalizes it', () => {
    expect(checkEntry('dist/server.mjs')).toBe('dist/server.mjs');
    expect(checkEntry('./index.js')).toBe('index.js');
  });
  it.each([['/etc/passwd.js'], ['../x.js'], ['dist/../../x.mjs'], ['server.ts'], ['--inspect.js'], ['a\0.js']])('rejects %s', (entry) => {
    let error: unknown;
    try {
      checkEntry(entry);
    } catch (e) {
      error = e;
    }
    expect(isSvcError(error, 'SVC_VALIDATION')).toBe(true);
  });
});
