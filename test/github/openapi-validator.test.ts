// The fake's OpenAPI validator must itself reject what GitHub would not accept (else "all requests
// valid" proves nothing).
import { describe, expect, it } from 'vitest';
import { githubOpenApi, OpenApiError } from '../support/fake-github/openapi-validator.js';

const q = new URLSearchParams();

describe('githubOpenApi().validate', () => {
  const v = githubOpenApi();
  it('accepts a documented request and names the operation', () => {
    const r = v.validate('POST', '/repos/o/r/check-runs', q, {
      name: 'svc/release',
      head_sha: 'a'.repeat(40),
      status: 'queued',
      output: { title: 't', summary: 's' },
    });
    expect(r.operationId).toBe('checks/create');
    expect(r.params).toEqual({ owner: 'o', repo: 'r' });
    expect(v.validate('POST', '/repos/o/r/issues/comments/12/reactions', q, { content: 'eyes' }).operationId).toBe('reactions/create-for-issue-comment');
  });
  it('rejects unknown top-level properties, wrong enums, missing required fields', () => {
    expect(() => v.validate('POST', '/repos/o/r/check-runs', q, { name: 'x', head_sha: 'y', colour: 'red' })).toThrow(OpenApiError);
    expect(() => v.validate('POST', '/repos/o/r/check-runs', q, { name: 'x', head_sha: 'y', status: 'done' })).toThrow(/enum|allowed/);
    expect(() => v.validate('POST', '/repos/o/r/check-runs', q, { name: 'x' })).toThrow(/head_sha/);
    expect(() => v.validate('POST', '/repos/o/r/issues/comments/12/reactions', q, { content: 'thumbsup' })).toThrow(OpenApiError);
  });
  it('rejects undocumented paths, methods, parameters and bodies', () => {
    expect(() => v.validate('POST', '/repos/o/r/check-runz', q, {})).toThrow(/no documented path/);
    expect(() => v.validate('DELETE', '/repos/o/r/check-runs/1', q, undefined)).toThrow(/method not documented/);
    expect(() => v.validate('PATCH', '/repos/o/r/check-runs/abc', q, { status: 'queued' })).toThrow(/check_run_id/);
    expect(() => v.validate('GET', '/repos/o/r/commits/abc/check-runs', new URLSearchParams({ colour: 'red' }), undefined)).toThrow(/not documented/);
    expect(() => v.validate('GET', '/repos/o/r/pulls/1', q, { x: 1 })).toThrow(/takes none/);
  });
});
