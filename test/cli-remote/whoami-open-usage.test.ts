// svc whoami, svc open and svc usage against the real control plane (child process on a free
// loopback port). The browser is the one outside system: a small xdg-open script on PATH records
// the argv it was started with, so `svc open` runs through the real executor end to end.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeStoredConfig } from '../../cli/credentials.js';
import { writeProjectLink } from '../../cli/project-link.js';
import type { WhoamiDocument } from '../../cli/commands/whoami.js';
import type { UsageDocument } from '../../cli/commands/usage.js';
import type { Project } from '../../src/projects/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { eventually } from '../releases/release-support.js';
import { runMain } from './run-main.js';

const QUOTA = 4;
let platform: StartedPlatform;
let owner: TestAccount;
let project: Project;
let home: string;
let work: string;

beforeAll(async () => {
  platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn', SVC_PROJECT_MONTHLY_REQUESTS: String(QUOTA) } });
  owner = await bootstrapAccount(platform.url);
  ({ project } = await owner.api<{ project: Project }>('POST', '/api/projects', { name: 'Open Me', slug: 'open-me' }));
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-home-'));
  work = await mkdtemp(join(tmpdir(), 'svc-work-'));
  await writeStoredConfig(home, { version: 1, server: platform.url, token: owner.accessToken, tokenId: owner.tokenId });
  return async () => {
    await rm(home, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  };
});

async function createToken(body: Record<string, unknown>): Promise<{ accessToken: string; token: { id: string } }> {
  return owner.api('POST', '/api/tokens', body);
}

describe('svc whoami', () => {
  it('shows server, account, token id, permissions and expiry (human and --json)', async () => {
    const human = await runMain(['whoami'], { home });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^Server +${platform.url} \\(stored login\\)$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^Account +${owner.email} \\(Test Owner\\)$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^Token +${owner.tokenId} "test support" \\(stored login\\)$`, 'm'));
    expect(human.stdout).toMatch(/^Scope +all projects \(account-wide\)$/m);
    expect(human.stdout).toMatch(/^Permissions +admin, audit, deploy, projects, read, rollback, secrets, tokens$/m);
    expect(human.stdout).toMatch(/^Expires +\d{4}-\d\d-\d\dT\S+Z \(in (89|90) d\)$/m);

    const json = await runMain(['whoami', '--json'], { home });
    expect(json.code).toBe(0);
    const doc = json.json<WhoamiDocument>();
    expect(doc).toMatchObject({
      server: platform.url,
      user: { email: owner.email },
      token: { id: owner.tokenId, status: 'active', projectId: null },
      project: null,
    });
    expect(Date.parse(doc.token.expiresAt)).toBeGreaterThan(Date.now() + 89 * 86_400_000);
    expect(JSON.stringify(doc)).not.toContain(owner.accessToken);
  });

  it('a project-scoped CI token without `tokens` permission sees its scope (slug only with `read`)', async () => {
    const deployOnly = await createToken({ name: 'ci-deploy', projectId: project.slug, permissions: ['deploy'], expiresInDays: 7 });
    const scoped = await runMain(['whoami', '--json'], { home, env: { SVC_TOKEN: deployOnly.accessToken, SVC_SERVER: platform.url } });
    expect(scoped.code, scoped.stdout).toBe(0);
    expect(scoped.json<WhoamiDocument>()).toMatchObject({
      source: { server: 'env', token: 'env' },
      token: { id: deployOnly.token.id, name: 'ci-deploy', permissions: ['deploy'], projectId: project.id },
      project: { id: project.id, slug: null },
    });
    const reader = await createToken({ name: 'ci-read', projectId: project.id, permissions: ['read', 'deploy'], expiresInDays: 2 });
    const human = await runMain(['whoami'], { home, env: { SVC_TOKEN: reader.accessToken, SVC_SERVER: platform.url } });
    expect(human.stdout).toMatch(new RegExp(`^Scope +project open-me \\(${project.id}\\)$`, 'm'));
    expect(human.stdout).toMatch(/^Expires +\S+ \(in (1 d|4\d h)\)$/m);
  });

  it('not logged in → SVC_NOT_LOGGED_IN (exit 77); a revoked token → SVC_TOKEN_REVOKED (exit 77)', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'svc-home-'));
    const out = await runMain(['whoami', '--json', '--server', platform.url], { home: empty });
    await rm(empty, { recursive: true, force: true });
    expect(out.json()).toMatchObject({ error: { code: 'SVC_NOT_LOGGED_IN' } });
    expect(out.code).toBe(77);

    const doomed = await createToken({ name: 'doomed', permissions: ['read'] });
    await owner.api('DELETE', `/api/tokens/${doomed.token.id}`);
    const revoked = await runMain(['whoami', '--json'], { home, env: { SVC_TOKEN: doomed.accessToken, SVC_SERVER: platform.url } });
    expect(revoked.json()).toMatchObject({ error: { code: 'SVC_TOKEN_REVOKED' } });
    expect(revoked.code).toBe(77);
  });

  it('runs as the real svc process', async () => {
    const result = await runCli(['whoami'], { home });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(owner.email);
    expect(result.stdout).toContain(owner.tokenId);
  });
});

describe('svc open', () => {
  let bin: string;
  let log: string;
  beforeEach(async () => {
    bin = join(work, 'bin');
    log = join(work, 'opener.log');
    await mkdir(bin);
    // Records each argument on its own line; exits with $FAKE_OPENER_EXIT (default 0).
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> "${log}"; done\nexit "\${FAKE_OPENER_EXIT:-0}"\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    await writeProjectLink(work, {
      version: 1,
      projectId: project.id,
      slug: project.slug,
      name: project.name,
      organizationId: project.organizationId,
      server: platform.url,
      linkedAt: new Date().toISOString(),
    });
  });
  const desktop = () => ({ PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':0' });
  const opened = async (): Promise<string[] | undefined> => (await readFile(log, 'utf8').catch(() => undefined))?.trimEnd().split('\n');

  it('opens the linked project’s app URL with the platform opener', async () => {
    const result = await runMain(['open', '--cwd', work], { home, env: desktop() });
    expect(result.code, result.stderr).toBe(0);
    expect(await opened()).toEqual([project.status.url]);
    expect(result.stdout.trim()).toBe(`Opened ${project.status.url}`);
  });

  it('opens a console page of a --project, by name or with --console', async () => {
    const releases = await runMain(['open', 'releases', '--project', project.slug], { home, env: desktop() });
    expect(releases.code, releases.stderr).toBe(0);
    const overview = await runMain(['open', '--console', '--cwd', work], { home, env: desktop() });
    expect(overview.code, overview.stderr).toBe(0);
    expect(await opened()).toEqual([`${platform.url}/projects/open-me/releases`, `${platform.url}/projects/open-me`]);
  });

  it('prints the URL instead with --json, --print, no graphical session, or a failing opener', async () => {
    const json = await runMain(['open', 'logs', '--json', '--cwd', work], { home, env: desktop() });
    expect(json.json()).toEqual({
      url: `${platform.url}/projects/open-me/logs`,
      target: 'console',
      page: 'logs',
      project: { id: project.id, slug: 'open-me' },
      opened: false,
    });
    const print = await runMain(['open', '--print', '--cwd', work], { home, env: desktop() });
    expect(print.stdout).toBe(`${project.status.url}\n`);
    const headless = await runMain(['open', '--cwd', work], { home, env: { PATH: desktop().PATH } });
    expect(headless.code).toBe(0);
    expect(headless.stdout).toBe(`${project.status.url}\n`);
    expect(headless.stderr).toMatch(/Not opening a browser \(no graphical session/);
    expect(await opened()).toBeUndefined();

    const failing = await runMain(['open', '--cwd', work], { home, env: { ...desktop(), FAKE_OPENER_EXIT: '3' } });
    expect(failing.code).toBe(0);
    expect(failing.stdout).toBe(`${project.status.url}\n`);
    expect(failing.stderr).toMatch(/xdg-open exited with 3/);
  });

  it('an unknown page is a usage error; no link and no --project is SVC_CLI_PROJECT_NOT_LINKED', async () => {
    const unknown = await runMain(['open', 'billing', '--json', '--cwd', work], { home, env: desktop() });
    expect(unknown.json()).toMatchObject({ error: { code: 'SVC_USAGE' } });
    expect(unknown.code).toBe(2);
    const unlinked = await runMain(['open', '--json', '--cwd', bin], { home, env: desktop() });
    expect(unlinked.json()).toMatchObject({ error: { code: 'SVC_CLI_PROJECT_NOT_LINKED' } });
    expect(await opened()).toBeUndefined();
  });
});

describe('svc usage', () => {
  it('shows the project and its workspace against the quota, warning once the quota is reached', async () => {
    // Requests to the project's host are metered by the ingress (no release yet: the platform answers them).
    for (let i = 0; i < QUOTA; i++) {
      const res = await request(`${platform.url}/`, { headers: { host: `${project.slug}.localhost:${platform.port}` } });
      await res.body.text();
    }
    await writeProjectLink(work, {
      version: 1,
      projectId: project.id,
      slug: project.slug,
      name: project.name,
      organizationId: project.organizationId,
      server: platform.url,
      linkedAt: new Date().toISOString(),
    });
    const doc = await eventually(async () => {
      const run = await runMain(['usage', '--json', '--cwd', work], { home });
      const body = run.json<UsageDocument>();
      return (body.project?.usage.usage.requests ?? 0) >= QUOTA ? body : null;
    }, 30_000);
    expect(doc.project).toMatchObject({ id: project.id, slug: 'open-me', usage: { usage: { quota: { requests: QUOTA, transferBytes: null } } } });
    expect(doc.project?.usage.forecast.requests).toMatchObject({ status: 'insufficient-evidence', warning: true });
    expect(doc.workspace).toMatchObject({
      id: project.organizationId,
      usage: { organizationId: project.organizationId, usage: { quota: { requests: null } } },
    });
    expect(doc.workspace?.usage.projects).toContainEqual(expect.objectContaining({ slug: 'open-me', requests: doc.project?.usage.usage.requests }));

    const human = await runMain(['usage', '--cwd', work], { home });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Project open-me: \d{4}-\d\d-01 to \d{4}-\d\d-\d\d \(UTC month\)$/m);
    expect(human.stdout).toMatch(/^requests +\d+ +4 +insufficient evidence \(under an hour of data\)/m);
    expect(human.stdout).toMatch(/^Warning: requests: quota reached at .* UTC \(\d+ of 4\)$/m);
    expect(human.stdout).toMatch(/^Workspace \S+: /m);
    expect(human.stdout).toMatch(/^open-me +\d+ +\S+ \S+$/m);
  });

  it('--org alone shows the workspace; neither a link nor flags is SVC_CLI_PROJECT_NOT_LINKED', async () => {
    const ws = await runMain(['usage', '--org', project.organizationId, '--json', '--cwd', work], { home });
    expect(ws.code, ws.stdout).toBe(0);
    expect(ws.json<UsageDocument>()).toMatchObject({ project: null, workspace: { id: project.organizationId }, workspaceError: null });
    const none = await runMain(['usage', '--json', '--cwd', work], { home });
    expect(none.json()).toMatchObject({ error: { code: 'SVC_CLI_PROJECT_NOT_LINKED' } });
  });

  it('a project-scoped token shows its project and says why the workspace is missing', async () => {
    const scoped = await createToken({ name: 'ci-usage', projectId: project.id, permissions: ['read'] });
    const run = await runMain(['usage', '--project', project.slug, '--json'], { home, env: { SVC_TOKEN: scoped.accessToken, SVC_SERVER: platform.url } });
    expect(run.code, run.stdout).toBe(0);
    const doc = run.json<UsageDocument>();
    expect(doc.project?.id).toBe(project.id);
    expect(doc.workspace).toBeNull();
    expect(doc.workspaceError?.code).toBe('SVC_TOKEN_SCOPE');
  });
});
