// An isolated app's network, as data: the exact slirp4netns command and the one port-forward request.
import { describe, expect, it } from 'vitest';
import { SANDBOX_FDS } from '../../../runner/sandbox/bwrap-args.js';
import { buildSlirpCommand, isolatedResolvConf, sandboxHostsFile, SLIRP_FDS } from '../../../runner/sandbox/slirp-args.js';

describe('buildSlirpCommand', () => {
  it('attaches to the sandbox’s network namespace by path, host loopback refused, sandboxed itself', () => {
    const cmd = buildSlirpCommand({ slirp4netns: '/usr/bin/slirp4netns', sandboxPid: 4242, apiSocket: '/srv/runs/run_1/net.sock' });
    expect(cmd).toEqual({
      file: '/usr/bin/slirp4netns',
      args: [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--enable-sandbox',
        '--enable-seccomp',
        '--exit-fd=3',
        '--ready-fd=4',
        '--api-socket=/srv/runs/run_1/net.sock',
        '--netns-type=path',
        '/proc/4242/ns/net',
        'tap0',
      ],
      env: { PATH: '/usr/bin:/bin' },
      replaceEnv: true,
    });
  });

  it('uses descriptors that match what the runner wires up', () => {
    // The runner passes the sandbox's sync pipe as slirp4netns's fd 3 and reads readiness on fd 4.
    expect(SLIRP_FDS).toEqual({ exit: 3, ready: 4 });
    expect(SANDBOX_FDS).toEqual({ args: 3, info: 4, block: 5, sync: 6 });
  });
});

describe('sandbox /etc files', () => {
  it('resolves names through slirp4netns’s resolver and knows only localhost', () => {
    expect(isolatedResolvConf()).toBe('nameserver 10.0.2.3\n');
    expect(sandboxHostsFile()).toBe('127.0.0.1 localhost svc-app\n::1 localhost ip6-localhost ip6-loopback\n');
  });
});
