// svc-runner as a process: --help, configuration errors (agent without control URL or credentials), and `provider`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execCommand } from '../../../src/core/exec.js';
import { command } from '../../../src/core/command.js';
import { createHttpDeploymentProvider } from '../../../runner/provider/create-http-deployment-provider.js';
import { readRunnerNodeSettings } from '../../../runner/runner-node-settings.js';
import { TOKEN } from './provider-helpers.js';

const entry = join(import.meta.dirname, '../../../runner/runner-main-cli.ts');
const run = (args: string[], env: Record<string, string> = {}) =>
  execCommand(command(process.execPath, ['--import', 'tsx', entry, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, replaceEnv: true }));
const dir = await mkdtemp(join(tmpdir(), 'svc-runner-main-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('svc-runner', () => {
  it('--help lists capacity, labels, concurrency, timeout, retry and artifact-limit settings', async () => {
    const result = await run(['--help']);
    expect(result.exitCode).toBe(0);
    for (const name of [
      'SVC_CONTROL_URL',
      'SVC_RUNNER_NODE_ID',
      'SVC_RUNNER_REGION',
      'SVC_RUNNER_REGISTRATION_TOKEN',
      'SVC_RUNNER_CREDENTIALS',
      'SVC_PROVIDER_URL',
      'SVC_PROVIDER_TOKEN',
      'SVC_RUNNER_CAPACITY',
      'SVC_RUNNER_LABELS',
      'SVC_RUNNER_CONCURRENCY',
      'SVC_RUNNER_TIMEOUT_MS',
      'SVC_RUNNER_RETRY_ATTEMPTS',
      'SVC_RUNNER_MAX_ARTIFACT_BYTES',
    ]) {
      expect(result.stdout).toContain(name);
    }
  }, 30_000);

  it('the agent (default command) needs a control URL, a node id and credentials; bad configuration is rejected', async () => {
    const agent = await run([]);
    expect(agent.exitCode).toBe(64);
    expect(agent.stderr).toContain('SVC_RUNNER_CONFIG');
    const noToken = await run(['agent'], {
      SVC_CONTROL_URL: 'http://127.0.0.1:9',
      SVC_RUNNER_NODE_ID: 'node-1',
      SVC_RUNNER_CREDENTIALS: join(dir, 'missing.json'),
    });
    expect(noToken.exitCode).toBe(64);
    expect(noToken.stderr).toContain('SVC_RUNNER_REGISTRATION_TOKEN');
    const remote = await run(['agent'], { SVC_CONTROL_URL: 'http://control.example', SVC_RUNNER_NODE_ID: 'node-1' });
    expect(remote.exitCode).toBe(64);
    expect(remote.stderr).toContain('HTTPS');
    const bad = await run(['provider'], { SVC_RUNNER_CONCURRENCY: 'lots' });
    expect(bad.exitCode).toBe(64);
    expect(bad.stderr).toContain('SVC_RUNNER_CONFIG');
    expect(readRunnerNodeSettings({ SVC_RUNNER_LABELS: 'zone=a, gpu=none' }).SVC_RUNNER_LABELS).toEqual({ zone: 'a', gpu: 'none' });
    expect(() => readRunnerNodeSettings({ SVC_RUNNER_LABELS: 'no-equals' })).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
    expect(() => readRunnerNodeSettings({ SVC_PROVIDER_TOKEN: 'short' })).toThrow(expect.objectContaining({ code: 'SVC_RUNNER_CONFIG' }));
  }, 30_000);

  it('`provider` serves the bridge and drains on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, 'provider', '--listen', '127.0.0.1:0'], {
      env: { PATH: process.env.PATH, SVC_PROVIDER_TOKEN: TOKEN, SVC_RUNNER_DATA_DIR: join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/[^/\s]+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', () => reject(new Error(`exited early: ${out}`)));
      setTimeout(() => reject(new Error('no listen line')), 20_000).unref();
    });
    const client = createHttpDeploymentProvider({ baseUrl: url, token: TOKEN, retryDelayMs: 1, maxAttempts: 2 });
    await client.reconcile({
      operation: { projectId: 'prj_1', id: 'op_1', fence: 1 },
      desired: { generation: 1, state: 'stopped', releaseId: null },
      artifact: null,
      signal: new AbortController().signal,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 40_000);
});
