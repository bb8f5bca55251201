// The operator's SVC_SANDBOX* settings: defaults, sizes, and a clear refusal of anything invalid.
import { describe, expect, it } from 'vitest';
import { defaultSandboxLimits } from '../../../runner/sandbox/bwrap-args.js';
import { readSandboxSettings } from '../../../runner/sandbox/sandbox-settings.js';

const MiB = 1024 ** 2;

describe('readSandboxSettings', () => {
  it('defaults to a sandbox with its own network and the documented limits', () => {
    expect(readSandboxSettings({})).toEqual({
      enabled: true,
      network: 'isolated',
      limits: { memoryBytes: 512 * MiB, processes: 2048, openFiles: 4096, tmpBytes: 64 * MiB },
      uidBase: undefined,
      bwrapPath: undefined,
    });
    expect(defaultSandboxLimits).toEqual({ memoryBytes: 512 * MiB, processes: 2048, openFiles: 4096, tmpBytes: 64 * MiB });
    // Variables that are not the sandbox's are ignored, not refused.
    expect(readSandboxSettings({ PATH: '/usr/bin', SVC_RUNNER: 'process' }).enabled).toBe(true);
  });

  it('reads every setting, sizes with an optional k/m/g suffix in either case', () => {
    const settings = readSandboxSettings({
      SVC_SANDBOX: 'off',
      SVC_SANDBOX_NETWORK: 'shared',
      SVC_SANDBOX_MEMORY: '1G',
      SVC_SANDBOX_PROCESSES: '64',
      SVC_SANDBOX_OPEN_FILES: '1024',
      SVC_SANDBOX_TMP_SIZE: '16m',
      SVC_SANDBOX_UID_BASE: '300000',
      SVC_SANDBOX_BWRAP: '/opt/bwrap/bin/bwrap',
    });
    expect(settings).toEqual({
      enabled: false,
      network: 'shared',
      limits: { memoryBytes: 1024 * MiB, processes: 64, openFiles: 1024, tmpBytes: 16 * MiB },
      uidBase: 300_000,
      bwrapPath: '/opt/bwrap/bin/bwrap',
    });
    const size = (value: string): number => readSandboxSettings({ SVC_SANDBOX_MEMORY: value }).limits.memoryBytes;
    expect([size('512m'), size('512M'), size('64k'), size('2g'), size('1048576')]).toEqual([512 * MiB, 512 * MiB, 64 * 1024, 2 * 1024 * MiB, MiB]);
  });

  it('refuses invalid values with SVC_SANDBOX_CONFIG, naming the variable', () => {
    const bad: Array<[string, string]> = [
      ['SVC_SANDBOX', 'yes'],
      ['SVC_SANDBOX', 'OFF'],
      ['SVC_SANDBOX_NETWORK', 'host'],
      ['SVC_SANDBOX_MEMORY', '512mb'],
      ['SVC_SANDBOX_MEMORY', '1.5g'],
      ['SVC_SANDBOX_MEMORY', '-1m'],
      ['SVC_SANDBOX_TMP_SIZE', 'big'],
      ['SVC_SANDBOX_PROCESSES', '7'],
      ['SVC_SANDBOX_PROCESSES', 'many'],
      ['SVC_SANDBOX_OPEN_FILES', '63'],
      ['SVC_SANDBOX_OPEN_FILES', '2000000'],
      ['SVC_SANDBOX_UID_BASE', '0'],
      ['SVC_SANDBOX_BWRAP', 'bwrap'],
    ];
    for (const [name, value] of bad) {
      let error: unknown;
      try {
        readSandboxSettings({ [name]: value });
      } catch (caught) {
        error = caught;
      }
      expect(error, `${name}=${value}`).toMatchObject({ code: 'SVC_SANDBOX_CONFIG' });
      expect((error as Error).message).toContain(name);
    }
  });
});
