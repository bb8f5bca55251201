import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContainerRunner } from '../../../runner/container/container-runner.js';
import { readRunnerSettings, selectAppRunner } from '../../../runner/container/select-runner.js';
import { LogStore } from '../../../runner/log-store.js';
import { ProcessRunner } from '../../../runner/process-runner.js';
import { SandboxRunner } from '../../../runner/sandbox/sandbox-runner.js';

const dir = await mkdtemp(join(tmpdir(), 'svc-select-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const base = { runsDir: join(dir, 'runs'), logs: new LogStore({ dir: join(dir, 'logs') }) };

describe('selectAppRunner', () => {
  it('defaults to the sandboxed process runner, runs unsandboxed only with SVC_SANDBOX=off, and selects podman with SVC_RUNNER=container', () => {
    const sandboxed = selectAppRunner({}, base);
    expect(sandboxed).toBeInstanceOf(SandboxRunner);
    expect(sandboxed.kind).toBe('sandbox');
    expect(selectAppRunner({ SVC_RUNNER: 'process' }, base)).toBeInstanceOf(SandboxRunner);
    const plain = selectAppRunner({ SVC_SANDBOX: 'off' }, base);
    expect(plain).toBeInstanceOf(ProcessRunner);
    expect(plain).not.toBeInstanceOf(SandboxRunner);
    expect(() => selectAppRunner({ SVC_SANDBOX: 'maybe' }, base)).toThrow(expect.objectContaining({ code: 'SVC_SANDBOX_CONFIG' }));
    const runner = selectAppRunner({ SVC_RUNNER: 'container', SVC_CONTAINER_IMAGE: 'localhost/app:1' }, base);
    expect(runner).toBeInstanceOf(ContainerRunner);
    expect(runner.kind).toBe('container');
  });

  it('reads limits and rejects invalid settings', () => {
    expect(readRunnerSettings({ SVC_RUNNER: 'container', SVC_CONTAINER_MEMORY: '256m', SVC_CONTAINER_PIDS: '64', SVC_CONTAINER_CPUS: '0.5' })).toEqual({
      kind: 'container',
      image: 'localhost/svc-node:20',
      limits: { memory: '256m', pids: 64, cpus: '0.5' },
    });
    for (const env of [{ SVC_RUNNER: 'docker' }, { SVC_CONTAINER_USER: '0:0' }, { SVC_CONTAINER_IMAGE: 'Bad Image' }, { SVC_CONTAINER_PIDS: '2' }]) {
      expect(() => readRunnerSettings(env)).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    }
  });
});
