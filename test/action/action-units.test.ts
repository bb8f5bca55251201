// Pure parts of the Action and its runner seam: inputs, outputs and the summary through
// @actions/core, idempotency key, retry policy, build command environment, token request URL and
// job summary.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { readActionSettings } from '../../action/src/action-inputs.js';
import { buildCommandFor } from '../../action/src/build-app.js';
import { idTokenUrl } from '../../action/src/id-token.js';
import { idempotencyKeyFor } from '../../action/src/idempotency-key.js';
import { renderJobSummary } from '../../action/src/job-summary.js';
import { retryDelayMs, shouldRetry } from '../../action/src/retry-policy.js';
import { workflowIo } from '../../action/src/workflow-commands.js';
import { parseOutputFile } from './action-process.js';

const SHA = 'a'.repeat(40);

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Put `env` into process.env (where @actions/core reads inputs) and read the settings through it. */
function settingsFrom(env: Record<string, string>, cwd: string) {
  vi.unstubAllEnvs();
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  return readActionSettings(workflowIo().input, env, cwd);
}

describe('runner protocol', () => {
  it('reads inputs the way the runner names them, trimmed', () => {
    vi.stubEnv('INPUT_WORKING_DIRECTORY', ' app ');
    vi.stubEnv('INPUT_MY_INPUT', 'x');
    const io = workflowIo();
    expect(io.input('working-directory')).toBe('');
    vi.stubEnv('INPUT_WORKING-DIRECTORY', ' app ');
    expect(io.input('working-directory')).toBe('app');
    expect(io.input('my input')).toBe('x');
  });

  it('writes outputs with a delimiter so values cannot inject other outputs, and appends the summary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-action-io-'));
    try {
      const [output, summary] = [join(dir, 'output'), join(dir, 'summary')];
      await writeFile(output, '');
      await writeFile(summary, '');
      vi.stubEnv('GITHUB_OUTPUT', output);
      vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
      const io = workflowIo();
      const evil = 'x\nstatus=active\nrelease-id<<EOF';
      io.setOutputs({ url: evil, status: 'failed' });
      expect(parseOutputFile(await readFile(output, 'utf8'))).toEqual({ url: evil, status: 'failed' });
      await io.appendSummary('### one');
      await io.appendSummary('two\n');
      expect(await readFile(summary, 'utf8')).toBe('### one\ntwo\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes no outputs or summary when run by hand (no runner files)', async () => {
    vi.stubEnv('GITHUB_OUTPUT', '');
    vi.stubEnv('GITHUB_STEP_SUMMARY', '');
    const io = workflowIo();
    expect(() => io.setOutputs({ status: 'active' })).not.toThrow();
    await expect(io.appendSummary('### x')).resolves.toBeUndefined();
  });
});

describe('idempotency key', () => {
  it('is sha256(repositoryId:sha:digest), stable and different per input', () => {
    const key = idempotencyKeyFor('42', SHA, 'd'.repeat(64));
    expect(key).toBe(
      createHash('sha256')
        .update(`42:${SHA}:${'d'.repeat(64)}`)
        .digest('hex'),
    );
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyFor('42', SHA, 'd'.repeat(64))).toBe(key);
    expect(idempotencyKeyFor('43', SHA, 'd'.repeat(64))).not.toBe(key);
    expect(idempotencyKeyFor('42', 'b'.repeat(40), 'd'.repeat(64))).not.toBe(key);
    expect(idempotencyKeyFor('42', SHA, 'e'.repeat(64))).not.toBe(key);
  });
});

describe('retry policy', () => {
  it('retries network errors, 408, 429, 5xx and retryable codes; not other 4xx', () => {
    expect(shouldRetry({ kind: 'network', message: 'ECONNRESET' })).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504]) expect(shouldRetry({ kind: 'response', status, code: null, retryAfter: undefined })).toBe(true);
    expect(shouldRetry({ kind: 'response', status: 409, code: 'SVC_PROJECT_LOCKED', retryAfter: undefined })).toBe(true);
    expect(shouldRetry({ kind: 'response', status: 401, code: 'SVC_OIDC_TOKEN_EXPIRED', retryAfter: undefined })).toBe(true);
    for (const code of ['SVC_OIDC_TOKEN_REPLAYED', 'SVC_OIDC_CLAIMS_MISMATCH', 'SVC_IDEMPOTENCY_KEY_REUSED', 'SVC_FORBIDDEN']) {
      expect(shouldRetry({ kind: 'response', status: 403, code, retryAfter: undefined })).toBe(false);
    }
    expect(shouldRetry({ kind: 'response', status: 400, code: 'SVC_FUTURE_CODE', retryAfter: undefined })).toBe(false);
  });

  it('backs off exponentially with a cap and honours a larger Retry-After', () => {
    expect([2, 3, 4, 5].map((n) => retryDelayMs(n, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(12, 1000)).toBe(60_000);
    expect(retryDelayMs(2, 1000, '7')).toBe(7000);
    expect(retryDelayMs(2, 1000, '9999')).toBe(120_000);
    expect(retryDelayMs(2, 1000, 'Wed, 21 Oct 2015 07:28:00 GMT')).toBe(1000);
  });
});

describe('inputs', () => {
  const env = { INPUT_SERVER: 'https://svc.example.com/', INPUT_PROJECT: 'shop', GITHUB_SHA: SHA, GITHUB_REPOSITORY_ID: '42', GITHUB_WORKSPACE: '/ws' };

  it('applies documented defaults', () => {
    expect(settingsFrom(env, '/cwd')).toMatchObject({
      server: 'https://svc.example.com',
      appDir: '/ws',
      token: null,
      audience: 'https://svc.example.com',
      build: true,
      maxAttempts: 5,
      idTokenRequest: null,
    });
    expect(
      settingsFrom(
        { ...env, 'INPUT_WORKING-DIRECTORY': 'apps/web', ACTIONS_ID_TOKEN_REQUEST_URL: 'http://x/t?a=1', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 't' },
        '/cwd',
      ),
    ).toMatchObject({
      appDir: '/ws/apps/web',
      idTokenRequest: { url: 'http://x/t?a=1', token: 't' },
    });
  });

  it('names the bad input or variable', () => {
    const codeAndMessage = (e: Record<string, string>) => {
      try {
        settingsFrom(e, '/');
        return 'ok';
      } catch (error) {
        return isSvcError(error) ? `${error.code} ${error.message}` : String(error);
      }
    };
    expect(codeAndMessage({ ...env, INPUT_SERVER: 'ftp://x' })).toMatch(/^SVC_ACTION_INPUT_INVALID input server/);
    expect(codeAndMessage({ ...env, GITHUB_SHA: 'abc' })).toMatch(/^SVC_ACTION_INPUT_INVALID GITHUB_SHA/);
    expect(codeAndMessage({ ...env, GITHUB_REPOSITORY_ID: 'octo/shop' })).toMatch(/^SVC_ACTION_INPUT_INVALID GITHUB_REPOSITORY_ID/);
    expect(codeAndMessage({ ...env, 'INPUT_MAX-ATTEMPTS': '0' })).toMatch(/^SVC_ACTION_INPUT_INVALID input max-attempts/);
    expect(codeAndMessage({ ...env, INPUT_BUILD: 'yes' })).toMatch(/^SVC_ACTION_INPUT_INVALID input build/);
    expect(codeAndMessage({ ...env, INPUT_PROJECT: '' })).toBe('SVC_ACTION_INPUT_INVALID input project: required and not supplied');
  });
});

describe('build command', () => {
  it('is argv without a shell, app tools first on PATH, and no credentials in the environment', () => {
    const cmd = buildCommandFor(['svc', 'build', 'src', 'dist'], '/ws/app', {
      PATH: '/usr/bin',
      HOME: '/home/runner',
      INPUT_TOKEN: 'svc_secret',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'rt',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'http://x',
      ACTIONS_RUNTIME_TOKEN: 'rt2',
      SVC_TOKEN: 'svc_other',
      CI: 'true',
    });
    expect(cmd).toMatchObject({ file: 'svc', args: ['build', 'src', 'dist'], cwd: '/ws/app', replaceEnv: true });
    expect(cmd.env).toEqual({ PATH: '/ws/app/node_modules/.bin:/usr/bin', HOME: '/home/runner', CI: 'true' });
  });
});

describe('token request URL', () => {
  it('adds the audience to the runner URL, keeping its query', () => {
    expect(idTokenUrl('https://pipelines.example/_apis/token?api-version=2.0', 'https://svc.example.com')).toBe(
      'https://pipelines.example/_apis/token?api-version=2.0&audience=https%3A%2F%2Fsvc.example.com',
    );
  });
});

describe('job summary', () => {
  it('renders a table with the outcome and escapes table syntax', () => {
    const md = renderJobSummary({
      status: 'failed',
      project: 'shop',
      releaseId: 'rel_1',
      url: 'http://shop.localhost:7070',
      sha: SHA,
      repository: 'octo/shop',
      digest: 'f'.repeat(64),
      fileCount: 3,
      artifactBytes: 1234,
      auth: 'oidc',
      attempts: 2,
      created: true,
      problem: { code: 'SVC_MIGRATION_FAILED', message: 'migrate: a | b\nc' },
    });
    expect(md).toContain('### svc deploy: failed');
    expect(md).toContain('| Release | `rel_1` |');
    expect(md).toContain('| Reason | `SVC_MIGRATION_FAILED` migrate: a \\| b c |');
    expect(md).toContain('| Upload attempts | 2 |');
  });
});
