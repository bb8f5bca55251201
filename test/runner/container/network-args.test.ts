import { describe, expect, it } from 'vitest';
import {
  buildNetworkCreateCommand,
  buildNetworkExistsCommand,
  buildNetworkListCommand,
  buildNetworkRemoveCommand,
  isProjectNetworkName,
  projectNetworkName,
} from '../../../runner/container/network-args.js';
import { defaultPodmanGlobal } from '../../../runner/container/podman-command.js';

describe('project network names', () => {
  it('use the project id when podman accepts it, a hash under another prefix otherwise', () => {
    expect(projectNetworkName('prj_k3j5abcdefghijkl')).toBe('svc-p-prj_k3j5abcdefghijkl');
    expect(projectNetworkName('a/b')).toBe('svc-ph-c14cddc033f64b9dea80ea675cf280a0');
    // Ids that only differ in characters podman refuses still get different networks.
    expect(projectNetworkName('a/b')).not.toBe(projectNetworkName('a:b'));
    expect(projectNetworkName('x'.repeat(49))).toMatch(/^svc-ph-/);
    expect(projectNetworkName('x'.repeat(48))).toBe(`svc-p-${'x'.repeat(48)}`);
  });

  it('recognise only project networks', () => {
    expect(isProjectNetworkName(projectNetworkName('prj_1'))).toBe(true);
    expect(isProjectNetworkName(projectNetworkName('a b'))).toBe(true);
    for (const name of ['host', 'none', 'podman', 'bridge', 'slirp4netns:allow_host_loopback=true', 'svc-p-', 'svc-ph-xyz', 'svc-p-a,b']) {
      expect(isProjectNetworkName(name)).toBe(false);
    }
  });
});

describe('network argv', () => {
  it('exists, create (isolated, no DNS, labelled), remove (never forced) and list', () => {
    expect(buildNetworkExistsCommand(defaultPodmanGlobal, 'svc-p-prj_1').args).toEqual(['--runtime', 'runc', 'network', 'exists', 'svc-p-prj_1']);
    expect(buildNetworkCreateCommand(defaultPodmanGlobal, 'svc-p-prj_1').args).toEqual([
      '--runtime',
      'runc',
      'network',
      'create',
      '--driver',
      'bridge',
      '--opt',
      'isolate=true',
      '--disable-dns',
      '--label',
      'svc.network=project',
      'svc-p-prj_1',
    ]);
    expect(buildNetworkRemoveCommand(defaultPodmanGlobal, 'svc-p-prj_1').args).toEqual(['--runtime', 'runc', 'network', 'rm', 'svc-p-prj_1']);
    expect(buildNetworkListCommand({ podman: '/usr/bin/podman', runtime: 'runc' })).toEqual({
      file: '/usr/bin/podman',
      args: ['--runtime', 'runc', 'network', 'ls', '--filter', 'label=svc.network=project', '--format', '{{.Name}}'],
    });
  });
});
