// End to end: the real control plane as a child process, a token from the real device flow,
// and the `svc` CLI as child processes: deploy the healthy fixture, use it through the ingress, see a
// bad migration fail with the prior release still serving and data unchanged, deploy v2, roll back
// code-only, then roll back with --restore-data and see the snapshot's data.
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError, type ErrorCode } from '../../src/core/errors.js';
import type { Release, ReleaseListResponse, RollbackResponse } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { finalJson, runCli, type CliResult } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const SLUG = 'e2e-notes';
let platform: StartedPlatform;
let account: TestAccount;
let root: string;
let app: string;

interface DeployJson {
  project: { id: string; slug: string; url: string | null; created: boolean };
  release: Release;
  created: boolean;
  error?: { code: string; message: string };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-e2e-deploy-'));
  app = join(root, 'app');
  platform = await startPlatform();
  account = await bootstrapAccount(platform.url);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

// One app directory whose code changes between deploys, as in a real checkout; `.svc/` (link) stays.
async function useFixture(name: string): Promise<void> {
  for (const entry of ['src', 'dist', 'migrations', 'svc.deploy.json']) await rm(join(app, entry), { recursive: true, force: true });
  await cp(join(repoRoot, 'fixtures', 'apps', name), app, { recursive: true });
}

function svc(args: string[]): Promise<CliResult> {
  // --cwd rather than the child's cwd: the child resolves `--import tsx` from the repository.
  return runCli(['--cwd', app, ...args], { home: root, env: { SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url }, timeoutMs: 120_000 });
}

function parse<T>(result: CliResult): T {
  try {
    return finalJson(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.exitCode})\nstdout: ${result.stdout}\nstderr: ${result.stderr}\nserver:\n${platform.logs().slice(-4000)}`);
  }
}

// The ingress routes by Host; *.localhost may not resolve in Node, so connect to 127.0.0.1 with the header.
async function viaIngress<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await request(`${platform.url}${path}`, {
    method,
    headers: { host: `${SLUG}.localhost:${platform.port}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: JSON.parse(text) as T };
}

const notes = async (): Promise<string[]> => (await viaIngress<{ notes: Array<{ text: string }> }>('GET', '/notes')).json.notes.map((n) => n.text);
const serving = async (): Promise<{ version: number; release: string }> => (await viaIngress<{ version: number; release: string }>('GET', '/')).json;
const addNote = async (text: string): Promise<void> => expect((await viaIngress('POST', '/notes', { text })).status).toBe(201);

describe('svc deploy → bad migration → v2 → rollback → rollback --restore-data', () => {
  it('runs the whole release lifecycle through the CLI and the ingress', async () => {
    // 1. First deploy creates and links the project; the app answers through the ingress.
    await useFixture('healthy');
    const first = await svc(['deploy', '--slug', SLUG, '--name', 'E2E Notes', '--json']);
    const v1 = parse<DeployJson>(first);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(v1).toMatchObject({ project: { slug: SLUG, created: true }, release: { status: 'active' }, created: true });
    expect(v1.project.url).toContain(`${SLUG}.localhost`);
    const link = JSON.parse(await readFile(join(app, '.svc', 'project.json'), 'utf8')) as { projectId: string; slug: string };
    expect(link).toMatchObject({ projectId: v1.project.id, slug: SLUG });
    await expect(stat(join(app, '.svc', 'attempts', `${v1.release.digest}.json`))).rejects.toThrow(); // definite outcome: record gone
    expect(await serving()).toEqual({ app: 'healthy', version: 1, release: v1.release.id });
    await addNote('first');
    expect(await notes()).toEqual(['first']);

    // 2. The bad migration fails; the prior release keeps serving and the data is unchanged.
    await useFixture('bad-migration');
    const bad = await svc(['deploy', '--json']);
    const failed = parse<DeployJson>(bad);
    expect(failed.release).toMatchObject({ status: 'failed', failure: { step: 'migrate', code: 'SVC_MIGRATION_FAILED' } });
    expect(failed.error?.code).toBe('SVC_MIGRATION_FAILED');
    expect(bad.exitCode).toBe(exitCodeFor(new SvcError(failed.error?.code as ErrorCode)));
    expect(bad.exitCode).not.toBe(0);
    expect(await serving()).toEqual({ app: 'healthy', version: 1, release: v1.release.id });
    expect(await notes()).toEqual(['first']);

    // 3. A good second version (migration 0002 adds notes.done) becomes active.
    await useFixture('healthy-v2');
    const good = await svc(['deploy', '--json']);
    const v2 = parse<DeployJson>(good);
    expect(good.exitCode, good.stderr).toBe(0);
    expect(v2.release).toMatchObject({ status: 'active', predecessorId: v1.release.id });
    expect((await serving()).version).toBe(2);
    await addNote('second');
    expect(await notes()).toEqual(['first', 'second']);

    // 4. Code-only rollback: v1 serves again against the current database (nothing lost).
    const codeOnly = await svc(['rollback', v1.release.id, '--json']);
    expect(codeOnly.exitCode, codeOnly.stderr).toBe(0);
    expect(parse<RollbackResponse>(codeOnly)).toMatchObject({
      release: { id: v1.release.id, status: 'active' },
      previousReleaseId: v2.release.id,
      restoredData: false,
    });
    expect(await serving()).toEqual({ app: 'healthy', version: 1, release: v1.release.id });
    expect(await notes()).toEqual(['first', 'second']);

    // 5. Data restore needs the active release's pre-deploy snapshot, so deploy v2 again: its snapshot
    //    holds first+second; "third" is written after it and must be lost by the restore.
    const again = await svc(['deploy', '--json']);
    const v2b = parse<DeployJson>(again);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(v2b.release).toMatchObject({ status: 'active', predecessorId: v1.release.id });
    expect(v2b.release.id).not.toBe(v2.release.id);
    await addNote('third');
    expect(await notes()).toEqual(['first', 'second', 'third']);

    // 6. Without the phrase: says what would be lost and the exact phrase, exits with the server's code, changes nothing.
    const unconfirmed = await svc(['rollback', v1.release.id, '--restore-data']);
    expect(unconfirmed.exitCode).toBe(exitCodeFor(new SvcError('SVC_RELEASE_CONFIRMATION_MISMATCH')));
    expect(unconfirmed.stderr).toContain('SVC_RELEASE_CONFIRMATION_MISMATCH');
    expect(unconfirmed.stderr).toContain(`snapshot taken before release ${v2b.release.id}`);
    expect(unconfirmed.stderr).toMatch(/every database write made since \S+/);
    expect(unconfirmed.stderr).toContain(`--confirm="restore ${SLUG}"`);
    expect((await serving()).release).toBe(v2b.release.id);
    expect(await notes()).toEqual(['first', 'second', 'third']);

    // A release other than the immediately previous one cannot restore data.
    const notPrevious = await svc(['rollback', v2.release.id, '--restore-data', `--confirm=restore ${SLUG}`, '--json']);
    expect(parse<{ error: { code: string } }>(notPrevious).error.code).toBe('SVC_RESTORE_NOT_ALLOWED');

    // 7. With the phrase: v1 serves the snapshot's data; the newer write is gone.
    const restored = await svc(['rollback', v1.release.id, '--restore-data', `--confirm=restore ${SLUG}`, '--json']);
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(parse<RollbackResponse>(restored)).toMatchObject({ release: { id: v1.release.id }, previousReleaseId: v2b.release.id, restoredData: true });
    expect(await serving()).toEqual({ app: 'healthy', version: 1, release: v1.release.id });
    expect(await notes()).toEqual(['first', 'second']);

    // 8. History with status and storage, logs through the API, and both rollbacks audited.
    const history = parse<ReleaseListResponse>(await svc(['releases', '--json']));
    expect(history.activeReleaseId).toBe(v1.release.id);
    const statuses = Object.fromEntries(history.releases.map((r) => [r.id, r.status]));
    expect(statuses).toEqual({ [v1.release.id]: 'active', [failed.release.id]: 'failed', [v2.release.id]: 'inactive', [v2b.release.id]: 'inactive' });
    expect(history.storage.usage.retainedArtifacts).toBeGreaterThanOrEqual(3);
    const table = await svc(['releases']);
    expect(table.stdout).toContain('SVC_MIGRATION_FAILED');
    expect(table.stdout).toMatch(/Storage: .* of .*artifacts kept/);

    // Cleanup of an inactive release needs its exact phrase; metadata stays.
    const noPhrase = await svc(['releases', 'delete', v2.release.id, '--json']);
    expect(parse<{ error: { code: string } }>(noPhrase).error.code).toBe('SVC_RELEASE_CONFIRMATION_MISMATCH');
    const removed = await svc(['releases', 'delete', v2.release.id, `--confirm=delete-release ${SLUG} ${v2.release.id}`, '--json']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parse<{ artifactRetained: boolean }>(removed)).toMatchObject({ releaseId: v2.release.id, artifactRetained: false });
    const after = parse<ReleaseListResponse>(await svc(['releases', '--json']));
    expect(after.releases.find((r) => r.id === v2.release.id)).toMatchObject({ status: 'inactive', artifactRetained: false });

    const logs = parse<{ entries: Array<{ stream: string; line: string; releaseId: string }> }>(await svc(['logs', '--release', v1.release.id, '--json']));
    expect(logs.entries.some((e) => e.stream === 'stdout' && e.line.includes('healthy listening'))).toBe(true);
    expect(logs.entries.every((e) => e.releaseId === v1.release.id)).toBe(true);

    const audit = await account.api<{ events: Array<{ kind: string; metadata: Record<string, unknown> }> }>(
      'GET',
      `/api/projects/${v1.project.id}/audit?limit=100`,
    );
    const kinds = audit.events.map((e) => e.kind);
    expect(audit.events.filter((e) => e.kind === 'rollback.complete').map((e) => e.metadata)).toEqual([
      expect.objectContaining({ releaseId: v1.release.id, restoreData: false }),
    ]);
    expect(audit.events.filter((e) => e.kind === 'rollback.restore_data').map((e) => e.metadata)).toEqual([
      expect.objectContaining({ releaseId: v1.release.id, fromReleaseId: v2b.release.id, restoreData: true }),
    ]);
    expect(kinds).toContain('release.fail');
  }, 240_000);
});
