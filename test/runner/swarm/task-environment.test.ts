import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { appEnvironment } from '../../../runner/swarm/entrypoint/task-secrets.js';
import { readTaskSettings, taskReleaseDir } from '../../../runner/swarm/entrypoint/task-settings.js';

const digest = 'c'.repeat(64);
const env = {
  PATH: '/usr/bin',
  HOME: '/data',
  PORT: '3000',
  HOST: '0.0.0.0',
  NODE_ENV: 'production',
  SVC_PROJECT_ID: 'prj_1',
  SVC_RELEASE_ID: 'rel_1',
  SVC_DATABASE_PATH: '/data/app.db',
  SVC_RELEASE_DIGEST: digest,
  SVC_ARTIFACT_URL: 'http://10.213.7.1:4100/v1/releases/rel_1/artifact',
  GREETING: 'hi',
};

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return isSvcError(error) ? error.code : String(error);
  }
}

describe('task settings', () => {
  it('reads the spec values with the real directory defaults', () => {
    const settings = readTaskSettings(env);
    expect(settings).toMatchObject({
      releaseDigest: digest,
      releaseId: 'rel_1',
      drainMs: 10_000,
      secretsDir: '/run/secrets',
      appDir: '/app',
      dataDir: '/data',
      tmpDir: '/tmp',
      retryWindowMs: 30_000,
    });
    expect(settings.artifactUrl.origin).toBe('http://10.213.7.1:4100');
    expect(taskReleaseDir(settings)).toBe('/app/release');
    expect(readTaskSettings({ ...env, SVC_DRAIN_MS: '0', SVC_SWARM_APP_DIR: '/t/app/' })).toMatchObject({ drainMs: 0, appDir: '/t/app' });
  });

  it('names what is missing or malformed', () => {
    for (const bad of [
      { SVC_ARTIFACT_URL: undefined },
      { SVC_ARTIFACT_URL: 'not a url' },
      { SVC_ARTIFACT_URL: 'ftp://x/y' },
      { SVC_ARTIFACT_URL: 'http://user:pw@x/y' },
      { SVC_RELEASE_DIGEST: 'C'.repeat(64) },
      { SVC_RELEASE_ID: '' },
      { SVC_DRAIN_MS: '-1' },
      { SVC_DRAIN_MS: '1e3' },
      { SVC_DRAIN_MS: '6000000' },
      { SVC_SWARM_DATA_DIR: 'relative' },
    ]) {
      expect(
        codeOf(() => readTaskSettings({ ...env, ...bad })),
        JSON.stringify(bad),
      ).toBe('SVC_SWARM_TASK_CONFIG');
    }
  });
});

describe("the app's environment", () => {
  it('is the task environment without the path overrides, then the secrets', () => {
    const app = appEnvironment({ ...env, SVC_DRAIN_MS: '5', SVC_SWARM_APP_DIR: '/t' }, { API_KEY: 'k', GREETING: 'secret wins', SVC_RECOVERY_KEY: 'r' });
    // SVC_DRAIN_MS stays: the app could read it from the entrypoint's /proc environ anyway.
    expect(app).toEqual({ ...env, SVC_DRAIN_MS: '5', API_KEY: 'k', GREETING: 'secret wins', SVC_RECOVERY_KEY: 'r' });
  });

  it('refuses a secret that would replace a platform value or is not passable to apps', () => {
    for (const name of [
      'PORT',
      'HOST',
      'PATH',
      'HOME',
      'NODE_ENV',
      'NODE_OPTIONS',
      'SVC_DATABASE_PATH',
      'SVC_ARTIFACT_URL',
      'SVC_DRAIN_MS',
      'LD_PRELOAD',
      'bad-name',
    ]) {
      expect(
        codeOf(() => appEnvironment(env, { [name]: 'x' })),
        name,
      ).toBe('SVC_VALIDATION');
    }
  });
});
