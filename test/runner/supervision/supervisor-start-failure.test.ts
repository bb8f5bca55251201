// What a controller raises when its supervisor reports a failed start: sandbox refusals keep their code.
import { describe, expect, it } from 'vitest';
import { supervisorStartFailure } from '../../../runner/supervision/supervised-runner.js';

describe('supervisorStartFailure', () => {
  it.each([
    ['sandbox unusable on this host', 'SVC_SANDBOX_UNAVAILABLE', 'SVC_SANDBOX_UNAVAILABLE', 'no bwrap'],
    ['sandbox set-up failed', 'SVC_SANDBOX_START_FAILED', 'SVC_SANDBOX_START_FAILED', 'no bwrap'],
    ['sandbox setting invalid', 'SVC_SANDBOX_CONFIG', 'SVC_SANDBOX_CONFIG', 'no bwrap'],
    ['an app that would not start', 'SVC_APP_START_FAILED', 'SVC_APP_START_FAILED', 'SVC_APP_START_FAILED: no bwrap'],
    ['any other code', 'SVC_CONTAINER_INVALID_SPEC', 'SVC_APP_START_FAILED', 'SVC_CONTAINER_INVALID_SPEC: no bwrap'],
    ['a code svc does not know', 'EACCES', 'SVC_APP_START_FAILED', 'EACCES: no bwrap'],
  ] as const)('%s', (_name, reported, code, message) => {
    expect(supervisorStartFailure(reported, 'no bwrap')).toMatchObject({ code, message });
  });
});
