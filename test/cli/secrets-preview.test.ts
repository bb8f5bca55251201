// `svc secrets set|list|delete --preview` against a real control plane (port 0): the preview scope is
// written and listed apart from production, --json carries the scope, and the help says what
// previews get.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createToken, register, startHarness, type Harness } from '../platform/harness.js';
import { runCli, tempDir } from './run-cli.js';

let h: Harness;
let url: string;
let token: string;
let projectId: string;
let home: string;
let cwd: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  h = await startHarness();
  cleanups.push(() => h.close());
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
  const owner = await register(h.app, 'owner@example.com');
  projectId = (await createProject(h.app, owner, { name: 'Shop', slug: 'shop' })).id;
  token = (await createToken(h.app, owner, { name: 'cli', permissions: ['secrets'] })).accessToken;
  const made = await tempDir('svc-cli-secrets-');
  cleanups.push(made.cleanup);
  home = join(made.dir, 'home'); // no stored login
  cwd = join(made.dir, 'app');
  await mkdir(home);
  await mkdir(cwd);
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An input stream that is not a terminal. */
function stdin(text: string) {
  return {
    isTTY: false,
    async *[Symbol.asyncIterator]() {
      yield text;
    },
  };
}

function svc(args: string[], input = '') {
  return runCli(['secrets', ...args, '--project', projectId, '--server', url], {
    cwd,
    home,
    stdin: stdin(input),
    env: { SVC_TOKEN: token, SVC_SERVER: undefined },
  });
}

describe('svc secrets --preview', () => {
  it('sets, lists and deletes the preview scope apart from production; --json carries the scope', async () => {
    const live = await svc(['set', 'API_KEY', '--json'], 'live-value\n');
    expect(live.code, live.stdout + live.stderr).toBe(0);
    expect(live.json()).toMatchObject({ secret: { name: 'API_KEY', scope: 'production' }, created: true });

    const preview = await svc(['set', '--preview', 'API_KEY', '--json'], 'preview-value\n');
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(preview.json()).toMatchObject({ secret: { name: 'API_KEY', scope: 'preview' }, created: true });
    expect(preview.stdout).not.toContain('preview-value');
    const human = await svc(['set', 'EXTRA', '--preview'], 'x');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Created preview secret EXTRA. Pull-request previews get it');

    expect(await h.plane.secrets.loadSecrets(projectId)).toEqual({ API_KEY: 'live-value' });
    expect(await h.plane.secrets.loadSecrets(projectId, 'preview')).toEqual({ API_KEY: 'preview-value', EXTRA: 'x' });

    const listPreview = await svc(['list', '--preview', '--json']);
    expect(listPreview.json<{ secrets: { name: string; scope: string }[] }>().secrets.map((s) => [s.name, s.scope])).toEqual([
      ['API_KEY', 'preview'],
      ['EXTRA', 'preview'],
    ]);
    const listDefault = await svc(['--json']);
    expect(listDefault.code, listDefault.stderr).toBe(0);
    expect(listDefault.json<{ secrets: { name: string; scope: string }[] }>().secrets.map((s) => [s.name, s.scope])).toEqual([['API_KEY', 'production']]);
    const bare = await svc(['--preview', '--json']); // `svc secrets --preview`: list is the default subcommand
    expect(bare.json()).toEqual(listPreview.json());
    const table = await svc(['list', '--preview']);
    expect(table.stdout).toMatch(/^Preview secrets \(given to pull-request previews only\):\n/);
    expect(table.stdout).toContain('EXTRA');

    const del = await svc(['delete', '--preview', 'API_KEY', '--json']);
    expect(del.json()).toEqual({ deleted: true, name: 'API_KEY', scope: 'preview' });
    expect(await h.plane.secrets.loadSecrets(projectId)).toEqual({ API_KEY: 'live-value' });
    expect(await h.plane.secrets.loadSecrets(projectId, 'preview')).toEqual({ EXTRA: 'x' });
    const gone = await svc(['delete', 'EXTRA', '--json']);
    expect(gone.json()).toMatchObject({ error: { code: 'SVC_SECRET_NOT_FOUND' } });
    expect(await h.plane.secrets.loadSecrets(projectId, 'preview')).toEqual({ EXTRA: 'x' });
  });

  it('help says previews get the preview secrets and never production secrets', async () => {
    // Commander wraps help to the terminal width: compare with whitespace collapsed.
    const text = async (args: string[]) => (await runCli(args, { cwd, home })).stdout.replace(/\s+/g, ' ');
    expect(await text(['secrets', '--help'])).toContain(
      'Production secrets (the default) go to the project itself. Pull-request previews get only the preview secrets (--preview) and never production secrets.',
    );
    for (const sub of ['set', 'list', 'delete']) {
      expect(await text(['secrets', sub, '--help'])).toContain(
        '--preview the preview scope: given to pull-request previews only (previews never get production secrets)',
      );
    }
  });
});
