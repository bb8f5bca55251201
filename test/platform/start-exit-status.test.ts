// svc-platform ends with the configuration status (2) for any invalid setting, whether the flag parser
// or a feature reading its own variables while the control plane builds finds it; other start-up
// failures exit 1. The servers' mappings are pure functions over the registry, checked here as well.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/core/errors.js';
import { configurationExitStatus, documentedExitStatus, platformStartExitStatus, runnerExitStatus } from '../../src/core/exit-status.js';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function startPlatform(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-start-exit-'));
  dirs.push(dir);
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'platform-main.ts'), '--listen', '127.0.0.1:0', '--data', join(dir, 'data')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: dir, SVC_INGRESS_PROCESS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('svc-platform start-up exit status', () => {
  it('exits 2 with SVC_OPS_CONFIG for invalid operations-monitor settings', async () => {
    const { code, output } = await startPlatform({ SVC_OPS_WEBHOOK_URL: 'http://127.0.0.1:9/hook', SVC_OPS_WEBHOOK_SECRET: 'short' });
    expect(output).toContain('SVC_OPS_CONFIG');
    expect(code, output).toBe(2);
  }, 60_000);

  it('exits 2 with SVC_PLATFORM_CONFIG_INVALID for an invalid platform variable', async () => {
    const { code, output } = await startPlatform({ SVC_TOKEN_TTL_DAYS: '0' });
    expect(output).toContain('SVC_PLATFORM_CONFIG_INVALID');
    expect(code, output).toBe(2);
  }, 60_000);
});

describe('exit status mappings', () => {
  it('svc-platform: settings 2, anything else 1', () => {
    expect(platformStartExitStatus(new SvcError('SVC_OPS_CONFIG'))).toBe(2);
    expect(platformStartExitStatus(new SvcError('SVC_RUNNER_CONFIG'))).toBe(2);
    expect(platformStartExitStatus(new SvcError('SVC_DB_MIGRATION_FAILED'))).toBe(1);
    expect(platformStartExitStatus(new Error('EADDRINUSE'))).toBe(1);
  });

  it('svc-runner: usage and settings 64, a missing component 69, anything else 1', () => {
    expect(runnerExitStatus(new SvcError('SVC_USAGE'))).toBe(64);
    expect(runnerExitStatus(new SvcError('SVC_RUNNER_CONFIG'))).toBe(64);
    expect(runnerExitStatus(new SvcError('SVC_SANDBOX_CONFIG'))).toBe(64);
    expect(runnerExitStatus(new SvcError('SVC_NOT_AVAILABLE'))).toBe(69);
    expect(runnerExitStatus(new SvcError('SVC_NETWORK'))).toBe(1);
  });

  it('documents the owning program’s status for configuration codes and the CLI’s otherwise', () => {
    expect(documentedExitStatus('SVC_OPS_CONFIG')).toEqual({ status: configurationExitStatus['svc-platform'], program: 'svc-platform' });
    expect(documentedExitStatus('SVC_RUNNER_CONFIG')).toEqual({ status: 64, program: 'svc-runner' });
    expect(documentedExitStatus('SVC_BACKUP_SCHEDULE_INVALID')).toEqual({ status: 65, program: 'svc' });
  });
});
