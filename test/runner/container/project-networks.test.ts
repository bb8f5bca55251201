// ProjectNetworks against a scripted podman: which commands run, in which order, and how exit codes
// are read. The real podman behaviour is covered by network-isolation.test.ts.
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Spawner } from '../../../src/core/exec.js';
import { ProjectNetworks } from '../../../runner/container/project-networks.js';
import { defaultPodmanGlobal } from '../../../runner/container/podman-command.js';

type Reply = { code: number; stdout?: string; stderr?: string };

/** A spawner answering each podman subcommand (e.g. `network exists`) from a queue of replies. */
function scriptedPodman(replies: Record<string, Reply[]>): { spawner: Spawner; calls: string[] } {
  const calls: string[] = [];
  const spawner: Spawner = (cmd) => {
    const args = cmd.args.slice(2);
    calls.push(args.join(' '));
    const reply = replies[`${args[0]} ${args[1]}`]?.shift() ?? { code: 99, stderr: 'unexpected call' };
    const child = Object.assign(new EventEmitter(), { stdout: new PassThrough(), stderr: new PassThrough() });
    setImmediate(() => {
      child.stdout.end(reply.stdout ?? '');
      child.stderr.end(reply.stderr ?? '');
      child.emit('close', reply.code, null);
    });
    return child as unknown as ChildProcess;
  };
  return { spawner, calls };
}

describe('ProjectNetworks', () => {
  it('creates a missing network once, even for concurrent starts, and reuses an existing one', async () => {
    const { spawner, calls } = scriptedPodman({ 'network exists': [{ code: 1 }, { code: 0 }, { code: 0 }], 'network create': [{ code: 0 }] });
    const networks = new ProjectNetworks(defaultPodmanGlobal, spawner);
    expect(await Promise.all([networks.ensure('prj_1'), networks.ensure('prj_1')])).toEqual(['svc-p-prj_1', 'svc-p-prj_1']);
    expect(await networks.ensure('prj_1')).toBe('svc-p-prj_1');
    expect(calls).toEqual([
      'network exists svc-p-prj_1',
      'network create --driver bridge --opt isolate=true --disable-dns --label svc.network=project svc-p-prj_1',
      'network exists svc-p-prj_1',
      'network exists svc-p-prj_1',
    ]);
  });

  it('removes the network when the last container using it exits, after any start queued before', async () => {
    const { spawner, calls } = scriptedPodman({ 'network exists': [{ code: 1 }, { code: 0 }], 'network create': [{ code: 0 }], 'network rm': [{ code: 0 }] });
    const networks = new ProjectNetworks(defaultPodmanGlobal, spawner);
    await networks.acquire('prj_1', 'old');
    // Detached and re-adopted by the same runner: still one user.
    networks.retain('prj_1', 'old');
    // The old container exits while a candidate starts: the network stays for the candidate.
    await Promise.all([networks.acquire('prj_1', 'candidate'), networks.release('prj_1', 'old')]);
    expect(calls.filter((c) => c.startsWith('network rm'))).toEqual([]);
    await networks.release('prj_1', 'candidate');
    expect(calls).toEqual([
      'network exists svc-p-prj_1',
      'network create --driver bridge --opt isolate=true --disable-dns --label svc.network=project svc-p-prj_1',
      'network exists svc-p-prj_1',
      'network rm svc-p-prj_1',
    ]);
  });

  it('accepts a network another process created in between, and fails when none exists after create', async () => {
    const raced = scriptedPodman({
      'network exists': [{ code: 1 }, { code: 0 }],
      'network create': [{ code: 125, stderr: 'network name svc-p-prj_1 already used' }],
    });
    expect(await new ProjectNetworks(defaultPodmanGlobal, raced.spawner).ensure('prj_1')).toBe('svc-p-prj_1');
    const broken = scriptedPodman({ 'network exists': [{ code: 1 }, { code: 1 }], 'network create': [{ code: 125, stderr: 'Error: iptables failed' }] });
    await expect(new ProjectNetworks(defaultPodmanGlobal, broken.spawner).ensure('prj_1')).rejects.toMatchObject({
      code: 'SVC_CONTAINER_UNAVAILABLE',
      message: expect.stringContaining('iptables failed'),
    });
    const noPodman = scriptedPodman({ 'network exists': [{ code: 125, stderr: 'cannot connect' }] });
    await expect(new ProjectNetworks(defaultPodmanGlobal, noPodman.spawner).ensure('prj_1')).rejects.toMatchObject({ code: 'SVC_CONTAINER_UNAVAILABLE' });
  });

  it('removes a project network (missing is success, in use is an error)', async () => {
    const gone = scriptedPodman({ 'network rm': [{ code: 1, stderr: 'network not found' }], 'network exists': [{ code: 1 }] });
    await new ProjectNetworks(defaultPodmanGlobal, gone.spawner).remove('prj_1');
    expect(gone.calls).toEqual(['network rm svc-p-prj_1', 'network exists svc-p-prj_1']);
    const inUse = scriptedPodman({ 'network rm': [{ code: 2, stderr: 'network is being used' }], 'network exists': [{ code: 0 }] });
    await expect(new ProjectNetworks(defaultPodmanGlobal, inUse.spawner).remove('prj_1')).rejects.toMatchObject({ code: 'SVC_CONTAINER_UNAVAILABLE' });
  });

  it('removes only stale networks of its own label, keeping live projects and networks still in use here or elsewhere', async () => {
    const { spawner, calls } = scriptedPodman({
      'network ls': [{ code: 0, stdout: 'svc-p-prj_live\nsvc-p-prj_gone\nsvc-p-prj_busy\nsvc-p-prj_mine\n' }],
      'network rm': [{ code: 0 }, { code: 2, stderr: 'network is being used' }],
    });
    const networks = new ProjectNetworks(defaultPodmanGlobal, spawner);
    networks.retain('prj_mine', 'c1');
    expect(await networks.removeStale(['prj_live'])).toEqual(['svc-p-prj_gone']);
    expect(calls).toEqual(['network ls --filter label=svc.network=project --format {{.Name}}', 'network rm svc-p-prj_gone', 'network rm svc-p-prj_busy']);
  });
});
