// kill -9 of the control plane at each step of the release transaction (SVC_FAILPOINT makes the
// process SIGKILL itself there), then a restart: the previous release serves and the database equals
// the snapshot (or, after activation, the fully migrated state). The data written before survives.
import { readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseListResponse } from '../../src/releases/contract.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';
import { eventually, packFixture, removeDataDir, type Artifact } from '../releases/release-support.js';
import { postRelease } from '../support/post-release.js';

let work: string;
let dataDir: string;
let platform: StartedPlatform | undefined;
let account: TestAccount;
let projectId: string;
const art: Record<string, Artifact> = {};

function upload(url: string, artifact: Artifact, key: string): Promise<Response> {
  return postRelease(url, account.accessToken, projectId, artifact, { key });
}

/** GET with the bearer token against the currently running platform (its port changes per start). */
async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${platform!.url}${path}`, { headers: { authorization: `Bearer ${account.accessToken}` } });
  if (!res.ok) throw new Error(`${path} → ${res.status}`);
  return (await res.json()) as T;
}

async function appUrl(): Promise<string> {
  const state = JSON.parse(await readFile(join(dataDir, 'supervisor.json'), 'utf8')) as {
    projects: Record<string, { record: { host: string; port: number } | null }>;
  };
  const record = state.projects[projectId]?.record;
  if (!record) throw new Error('not running');
  return `http://${record.host}:${record.port}`;
}

async function served(): Promise<{ version: number; release: string; notes: string[] }> {
  const url = await appUrl();
  const root = (await (await fetch(`${url}/`)).json()) as { version: number; release: string };
  const notes = ((await (await fetch(`${url}/notes`)).json()) as { notes: { text: string }[] }).notes.map((n) => n.text);
  return { version: root.version, release: root.release, notes };
}

function hasDoneColumn(): boolean {
  const db = new Database(join(dataDir, 'projects', projectId, 'data', 'app.db'), { readonly: true });
  try {
    return (db.prepare('PRAGMA table_info(notes)').all() as { name: string }[]).some((c) => c.name === 'done');
  } finally {
    db.close();
  }
}

async function start(failpoint?: string): Promise<StartedPlatform> {
  platform = await startPlatform({ dataDir, env: { SVC_LOG_LEVEL: 'warn', ...(failpoint ? { SVC_FAILPOINT: failpoint } : {}) } });
  return platform;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-faults-art-'));
  art.v1 = await packFixture('healthy', work);
  art.v2 = await packFixture('healthy-v2', work);
  dataDir = await mkdtemp(join(tmpdir(), 'svc-faults-'));
  const p = await start();
  account = await bootstrapAccount(p.url);
  projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Faults', slug: 'faults' })).project.id;
  const res = await upload(p.url, art.v1!, 'v1-key-0001');
  expect(res.status, await res.clone().text()).toBe(201);
  const url = await appUrl();
  expect((await fetch(`${url}/notes`, { method: 'POST', body: JSON.stringify({ text: 'kept' }) })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await removeDataDir(dataDir);
  await removeDataDir(work);
});

const failpoints = ['after-lock', 'after-extract', 'after-stop', 'after-snapshot', 'after-migrate', 'after-start', 'after-health'] as const;

describe('kill -9 during the release transaction', () => {
  let v1Id: string;

  it.each(failpoints)(
    '%s: after restart the previous release serves with the snapshot data',
    async (failpoint) => {
      await platform!.stop();
      const p = await start(failpoint);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => p.child.once('exit', (_code, signal) => resolve(signal)));
      await upload(p.url, art.v2!, `v2-${failpoint}`).catch(() => null);
      expect(await exited).toBe('SIGKILL');

      const q = await start();
      const list = await eventually(async () => {
        const l = await get<ReleaseListResponse>(`/api/projects/${projectId}/releases`);
        return l.releases.some((r) => r.status === 'candidate') ? null : l;
      }).catch(async (error: unknown) => {
        throw new Error(
          `${String(error)}\n${JSON.stringify(await get(`/api/projects/${projectId}/releases`).catch((e: unknown) => String(e)))}\n${q.logs().slice(-4000)}`,
        );
      });
      const active = list.releases.find((r) => r.status === 'active')!;
      v1Id ??= active.id;
      expect(active.id).toBe(v1Id);
      if (failpoint !== 'after-lock') {
        const interrupted = list.releases[0]!;
        expect(interrupted.status).toBe('failed');
        expect(interrupted.failure?.code).toBe('SVC_RELEASE_INTERRUPTED');
      }
      const now = await eventually(() => served(), 20_000).catch(async (error: unknown) => {
        throw new Error(
          `${String(error)}\n${JSON.stringify(list.releases.map((r) => [r.id, r.status, r.failure]))}\n${await readFile(join(dataDir, 'supervisor.json'), 'utf8').catch(() => '')}\n${q.logs().slice(-4000)}`,
        );
      });
      expect(now).toEqual({ version: 1, release: v1Id, notes: ['kept'] });
      expect(hasDoneColumn()).toBe(false);
      if (failpoint !== 'after-lock') {
        const audit = await get<{ events: { kind: string }[] }>(`/api/projects/${projectId}/audit?limit=200`);
        expect(audit.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['lock.recovered', 'release.fail']));
      }
      void q;
    },
    90_000,
  );

  it('after-activate: the new release is active and serves the fully migrated database', async () => {
    await platform!.stop();
    const p = await start('after-activate');
    const exited = new Promise<NodeJS.Signals | null>((resolve) => p.child.once('exit', (_code, signal) => resolve(signal)));
    await upload(p.url, art.v2!, 'v2-after-activate').catch(() => null);
    expect(await exited).toBe('SIGKILL');
    await start();
    const list = await get<ReleaseListResponse>(`/api/projects/${projectId}/releases`);
    const active = list.releases.find((r) => r.status === 'active')!;
    expect(active.id).toBe(list.releases[0]!.id);
    const now = await eventually(async () => {
      const s = await served();
      return s.version === 2 ? s : null;
    }, 20_000);
    expect(now).toEqual({ version: 2, release: active.id, notes: ['kept'] });
    expect(hasDoneColumn()).toBe(true);
  }, 90_000);
});
