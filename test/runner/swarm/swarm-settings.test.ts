// SVC_DRIVER and the swarm driver's settings: pure readers, and a control plane that refuses to start
// on a swarm it cannot use (stable codes, no fallback to the local driver).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testPlatformConfig } from '../../../src/core/config.js';
import { errorCodes, isSvcError } from '../../../src/core/errors.js';
import { createLogger } from '../../../src/core/logger.js';
import { buildControlPlane } from '../../../src/platform.js';
import { locateProjectPath } from '../../../src/releases/index.js';
import { dockerSocketPath, readDriverChoice, readSwarmSettings } from '../../../runner/swarm/swarm-settings.js';
import { removeDataDir } from '../../releases/release-support.js';

const base = { SVC_DRIVER: 'swarm', SVC_SWARM_ENDPOINT: 'http://10.213.5.1:0' };

function codeOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isSvcError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('did not throw');
}

describe('swarm settings', () => {
  it('selects the local driver unless SVC_DRIVER says swarm', () => {
    expect(readDriverChoice({})).toBe('local');
    expect(readDriverChoice({ SVC_DRIVER: 'swarm' })).toBe('swarm');
    expect(codeOf(() => readDriverChoice({ SVC_DRIVER: 'nomad' }))).toMatchObject({ code: 'SVC_SWARM_CONFIG', message: expect.stringContaining('SVC_DRIVER') });
  });

  it('reads the defaults and the endpoint address tasks reach', () => {
    expect(readSwarmSettings(base)).toEqual({
      dockerHost: 'unix:///var/run/docker.sock',
      image: undefined,
      endpoint: { host: '10.213.5.1', port: 0 },
      replicas: 1,
      drainMs: 10_000,
      stopOnClose: false,
      startTimeoutMs: 60_000,
    });
    const image = `sha256:${'c'.repeat(64)}`;
    const settings = readSwarmSettings({
      ...base,
      DOCKER_HOST: 'unix:///run/d.sock',
      SVC_SWARM_IMAGE: image,
      SVC_SWARM_ENDPOINT: 'http://[fd00::1]:7071',
      SVC_SWARM_REPLICAS: '2',
      SVC_SWARM_DRAIN_MS: '3000',
      SVC_SWARM_STOP_ON_CLOSE: 'on',
    });
    expect(settings).toMatchObject({
      dockerHost: 'unix:///run/d.sock',
      image,
      endpoint: { host: 'fd00::1', port: 7071 },
      replicas: 2,
      drainMs: 3000,
      stopOnClose: true,
    });
    expect(dockerSocketPath(settings.dockerHost)).toBe('/run/d.sock');
  });

  it('refuses what it cannot use, naming the setting', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SVC_DRIVER: 'swarm' }, /SVC_SWARM_ENDPOINT/],
      [{ ...base, DOCKER_HOST: 'tcp://10.0.0.2:2375' }, /DOCKER_HOST.*unix socket/],
      [{ ...base, SVC_SWARM_IMAGE: 'svc-swarm-node:latest' }, /SVC_SWARM_IMAGE.*never a tag/],
      [{ ...base, SVC_SWARM_ENDPOINT: 'https://10.0.0.1:7071' }, /plain http/],
      [{ ...base, SVC_SWARM_ENDPOINT: 'http://10.0.0.1' }, /name the port/],
      [{ ...base, SVC_SWARM_ENDPOINT: 'http://0.0.0.0:7071' }, /not a wildcard/],
      [{ ...base, SVC_SWARM_ENDPOINT: 'http://10.0.0.1:7071/v1' }, /no path/],
      [{ ...base, SVC_SWARM_REPLICAS: '0' }, /SVC_SWARM_REPLICAS/],
      [{ ...base, SVC_SWARM_DRAIN_MS: '-1' }, /SVC_SWARM_DRAIN_MS/],
    ];
    for (const [env, message] of cases)
      expect(codeOf(() => readSwarmSettings(env))).toMatchObject({ code: 'SVC_SWARM_CONFIG', message: expect.stringMatching(message) });
    expect(errorCodes.SVC_SWARM_CONFIG.hint).toContain('docs/swarm.md');
  });
});

describe('a control plane on the swarm driver', () => {
  it('does not start with invalid settings or an engine it cannot reach, and never falls back', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-swarm-start-'));
    const start = (env: Record<string, string>) =>
      buildControlPlane({
        config: testPlatformConfig({ dataDir, publicUrl: 'http://127.0.0.1:7070', logLevel: 'silent', env }),
        logger: createLogger({ level: 'silent' }),
      });
    try {
      await expect(start({ SVC_DRIVER: 'swarm' })).rejects.toMatchObject({ code: 'SVC_SWARM_CONFIG' });
      await expect(
        start({ ...base, SVC_SWARM_ENDPOINT: 'http://127.0.0.1:0', DOCKER_HOST: `unix://${join(dataDir, 'no-docker.sock')}` }),
      ).rejects.toMatchObject({
        code: 'SVC_SWARM_UNAVAILABLE',
        message: expect.stringContaining('no-docker.sock'),
      });
    } finally {
      await removeDataDir(dataDir);
    }
  });
});

describe('locateProjectPath', () => {
  it('finds the project (and release) of a control-plane path, and nothing outside projects', () => {
    expect(locateProjectPath('/srv/svc', '/srv/svc/projects/prj_1/data/db/app.db')).toEqual({ projectId: 'prj_1', dataDir: '/srv/svc/projects/prj_1/data' });
    expect(locateProjectPath('/srv/svc', '/srv/svc/projects/prj_1/releases/rel_2/migrations')).toEqual({
      projectId: 'prj_1',
      dataDir: '/srv/svc/projects/prj_1/data',
      releaseId: 'rel_2',
      releaseDir: '/srv/svc/projects/prj_1/releases/rel_2',
    });
    expect(locateProjectPath('/srv/svc', '/srv/svc/backups/prj_1.db')).toBeNull();
    expect(locateProjectPath('/srv/svc', '/srv/svc/projects/../control.db')).toBeNull();
    expect(locateProjectPath('/srv/svc', '/etc/passwd')).toBeNull();
  });
});
