// installation / installation_repositories events keep the registry current; a link whose
// installation was removed or suspended, or lost the repository, is shown as broken.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { example, pushPayload } from '../support/fake-github/webhooks.js';
import { INSTALLATION, REPO, REPO_ID, startGithubHarness, type GithubHarness } from './github-harness.js';

let h: GithubHarness;
beforeEach(async () => {
  h = await startGithubHarness();
});
afterEach(async () => {
  await h?.close();
});

const linkStatus = async () => (await h.app.inject({ method: 'GET', url: `/api/projects/${h.project.id}/github`, headers: h.owner.headers() })).json().link;

function installationEvent(action: string) {
  const payload = example('installation', (p) => p.action === action);
  payload.installation.id = INSTALLATION;
  if (payload.repositories) payload.repositories = [{ id: REPO_ID, name: 'Hello-World', full_name: REPO, private: false, node_id: 'x' }];
  return payload;
}

describe('installation registry', () => {
  it('marks the link broken when the app is uninstalled, and ignores pushes then', async () => {
    await h.deliver('installation', installationEvent('created'));
    expect((await linkStatus()).status).toBe('ok');
    await h.deliver('installation', installationEvent('deleted'));
    expect(await linkStatus()).toMatchObject({ status: 'broken', problem: { reason: 'installation_missing' } });
    await h.deliver('push', pushPayload({ sha: 'c'.repeat(40) }));
    expect(h.results.at(-1)!.result).toMatchObject({ outcome: 'ignored', reason: 'installation_missing' });
    expect(h.fake.checkRuns).toHaveLength(0);
  });

  it('tracks suspend and unsuspend', async () => {
    await h.deliver('installation', installationEvent('suspend'));
    expect(await linkStatus()).toMatchObject({ status: 'broken', problem: { reason: 'installation_suspended' } });
    await h.deliver('installation', installationEvent('unsuspend'));
    expect((await linkStatus()).status).toBe('ok');
  });

  it('tracks repositories removed from and added to the installation', async () => {
    const removed = example('installation_repositories', (p) => p.action === 'removed');
    removed.installation.id = INSTALLATION;
    removed.repositories_removed = [{ id: REPO_ID, full_name: REPO, name: 'Hello-World', node_id: 'x', private: false }];
    await h.deliver('installation_repositories', removed);
    expect(await linkStatus()).toMatchObject({ status: 'broken', problem: { reason: 'repository_removed' } });
    const added = example('installation_repositories', (p) => p.action === 'added');
    added.installation.id = INSTALLATION;
    added.repositories_added = [{ id: REPO_ID, full_name: REPO, name: 'Hello-World', node_id: 'x', private: false }];
    await h.deliver('installation_repositories', added);
    expect((await linkStatus()).status).toBe('ok');
    const list = await h.app.inject({ method: 'GET', url: '/api/github/installations', headers: h.owner.headers() });
    expect(list.json().installations[0]).toMatchObject({ id: INSTALLATION, status: 'active', repositories: [{ id: REPO_ID, fullName: REPO }] });
  });

  it('refuses to link a repository the app is not installed on', async () => {
    const res = await h.link({ repository: 'someone/else' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('SVC_GITHUB_REPOSITORY_NOT_INSTALLED');
  });
});
