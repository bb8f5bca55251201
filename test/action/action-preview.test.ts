// The Action in a pull request's workflow: it deploys the pull request's preview from the head commit
// (never GitHub's merge commit) and refuses pull_request_target, which runs the pull request's code with
// the base repository's credentials.
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { pullRequestOf, readActionSettings } from '../../action/src/action-inputs.js';

const HEAD = 'b'.repeat(40);
const MERGE = 'c'.repeat(40);
const inputs: Record<string, string> = { server: 'https://svc.example.com', project: 'shop' };
const read = (name: string) => inputs[name] ?? '';
const base = { GITHUB_SHA: MERGE, GITHUB_REPOSITORY_ID: '42', GITHUB_REF: 'refs/pull/7/merge' };
const event = { action: 'synchronize', number: 7, pull_request: { number: 7, head: { sha: HEAD, ref: 'feature' } } };

describe('the Action in a pull_request workflow', () => {
  it("uploads the pull request's head commit to its preview", () => {
    const settings = readActionSettings(read, { ...base, GITHUB_EVENT_NAME: 'pull_request' }, '/work', () => event);
    expect(settings).toMatchObject({ preview: 7, sha: HEAD, project: 'shop' });
  });

  it('deploys production for any other event', () => {
    const settings = readActionSettings(read, { ...base, GITHUB_REF: 'refs/heads/main', GITHUB_EVENT_NAME: 'push' }, '/work', () => {
      throw new Error('not read for a push');
    });
    expect(settings).toMatchObject({ preview: null, sha: MERGE });
  });

  it('refuses pull_request_target and an unreadable or foreign event payload', () => {
    const code = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return isSvcError(error) ? error.code : String(error);
      }
      return null;
    };
    expect(code(() => pullRequestOf({ GITHUB_EVENT_NAME: 'pull_request_target' }, () => event))).toBe('SVC_ACTION_INPUT_INVALID');
    expect(
      code(() =>
        pullRequestOf({ GITHUB_EVENT_NAME: 'pull_request' }, () => {
          throw new Error('ENOENT');
        }),
      ),
    ).toBe('SVC_ACTION_INPUT_INVALID');
    expect(code(() => pullRequestOf({ GITHUB_EVENT_NAME: 'pull_request' }, () => ({ ref: 'refs/heads/main' })))).toBe('SVC_ACTION_INPUT_INVALID');
    expect(pullRequestOf({ GITHUB_EVENT_NAME: 'pull_request' }, () => event)).toEqual({ number: 7, headSha: HEAD });
  });
});
