// A provider deploy is as database-safe as the control plane's release transaction: the writer stops,
// the database is snapshotted and migrated, and a failed candidate (health or migration) gets the
// snapshot restored and the previous release restarted at the same address. A restore-data rollback
// puts the pre-deploy snapshot back with a safety copy of today's data until the switch.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import type { ProviderArtifact, ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import { openInProcessProvider, type InProcessProvider } from '../supervision/in-process-provider.js';
import { appPids, reconcileRequest, writerMonitor } from '../supervision/supervision-helpers.js';
import { packedFixtureWithMigrations } from './fixture-variants.js';
import { packedFixture } from './provider-helpers.js';

let dir: string;
let node: InProcessProvider;
const artifacts: Record<string, ProviderArtifact> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-provider-db-'));
  artifacts.healthy = await packedFixture('healthy');
  artifacts['bad-migration'] = await packedFixture('bad-migration');
  artifacts['healthy-v2'] = await packedFixture('healthy-v2');
  artifacts['crash-on-boot'] = await packedFixtureWithMigrations('crash-on-boot', 'healthy-v2');
  node = openInProcessProvider(dir);
}, 60_000);
afterAll(async () => {
  await node.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

let projectId = 'prj_db';
const project = (): string => join(dir, 'projects', projectId);
const pointer = (): ActivePointer => JSON.parse(readFileSync(join(project(), 'active.json'), 'utf8')) as ActivePointer;
function query<T>(sql: string): T[] {
  const db = new Database(join(project(), 'data', 'app.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
const version = async (p: ActivePointer): Promise<number> =>
  ((await (await fetch(`http://${p.host}:${p.port}/healthz`)).json()) as { version: number }).version;

describe('provider deploys and the project database', () => {
  it('migrates before start, restores the snapshot and restarts the previous release on failure', async () => {
    const writers = writerMonitor('prj_db');
    try {
      await node.provider.reconcile(reconcileRequest('prj_db', 1, artifacts.healthy!));
      const first = pointer();
      expect(query<{ name: string }>('SELECT name FROM _svc_migrations').map((r) => r.name)).toEqual(['0001_init.sql']);
      const db = new Database(join(project(), 'data', 'app.db'));
      db.prepare("INSERT INTO notes (text) VALUES ('kept')").run();
      db.close();

      // Health failure after migration 0002 ran: the snapshot comes back, generation 1 serves again.
      await expect(node.provider.reconcile(reconcileRequest('prj_db', 2, artifacts['crash-on-boot']!))).rejects.toMatchObject({
        code: 'SVC_HEALTH_CHECK_FAILED',
      });
      expect(pointer()).toEqual(first);
      expect(await version(first)).toBe(1);
      expect(query<{ name: string }>('PRAGMA table_info(notes)').map((c) => c.name)).not.toContain('done');
      expect(query<{ text: string }>('SELECT text FROM notes')).toEqual([{ text: 'kept' }]);

      // A migration SQLite rejects: nothing applied, previous release restarted.
      await expect(node.provider.reconcile(reconcileRequest('prj_db', 3, artifacts['bad-migration']!))).rejects.toMatchObject({ code: 'SVC_MIGRATION_FAILED' });
      expect(pointer()).toEqual(first);
      expect(await version(first)).toBe(1);
      expect(query<{ name: string }>('SELECT name FROM _svc_migrations').map((r) => r.name)).toEqual(['0001_init.sql']);
      expect(appPids('prj_db')).toHaveLength(1);
    } finally {
      writers.stop();
    }
    expect(writers.max()).toBe(1);
  }, 90_000);

  it('a restore-data rollback puts back the snapshot taken before the active release, keeping a safety copy until it switched', async () => {
    projectId = 'prj_restore';
    const note = (text: string): void => {
      const db = new Database(join(project(), 'data', 'app.db'));
      db.prepare('INSERT INTO notes (text) VALUES (?)').run(text);
      db.close();
    };
    const notes = (): string[] => query<{ text: string }>('SELECT text FROM notes ORDER BY id').map((r) => r.text);
    const rollbackTo = (fence: number, releaseId: string, artifact: ProviderArtifact, fromReleaseId: string | null): ReconcileRequest => ({
      ...reconcileRequest(projectId, fence, artifact),
      desired: { generation: fence, state: 'running', releaseId },
      rollback: { restoreData: true, fromReleaseId },
    });
    const writers = writerMonitor(projectId);
    try {
      await node.provider.reconcile(reconcileRequest(projectId, 1, artifacts.healthy!));
      note('one');
      // Release 2 migrates (stop-first): the snapshot taken before it holds 'one' and the old schema.
      await node.provider.reconcile(reconcileRequest(projectId, 2, artifacts['healthy-v2']!));
      expect(pointer()).toMatchObject({ releaseId: 'rel_2', previousReleaseId: 'rel_1' });
      note('lost');
      const pidsBefore = appPids(projectId);

      // The control plane saw another release active: refused before anything stops.
      await expect(node.provider.reconcile(rollbackTo(3, 'rel_1', artifacts.healthy!, 'rel_9'))).rejects.toMatchObject({ code: 'SVC_RESTORE_NOT_ALLOWED' });
      expect(appPids(projectId)).toEqual(pidsBefore);
      expect(notes()).toEqual(['one', 'lost']);

      await node.provider.reconcile(rollbackTo(4, 'rel_1', artifacts.healthy!, 'rel_2'));
      const back = pointer();
      expect(back).toMatchObject({ generation: 4, releaseId: 'rel_1', previousReleaseId: 'rel_2' });
      expect(await version(back)).toBe(1);
      expect(notes()).toEqual(['one']);
      expect(query<{ name: string }>('PRAGMA table_info(notes)').map((c) => c.name)).not.toContain('done');
      expect(existsSync(join(project(), 'snapshots', 'before-rollback-rel_1.db'))).toBe(false);
      expect(existsSync(join(project(), 'deploy-in-flight.json'))).toBe(false);

      // A restore whose target fails its health check: the safety copy (today's data) comes back and
      // the active release serves again. rel_1's own pre-deploy snapshot is "no database yet".
      note('today');
      await expect(node.provider.reconcile(rollbackTo(5, 'rel_5', artifacts['crash-on-boot']!, 'rel_1'))).rejects.toMatchObject({
        code: 'SVC_HEALTH_CHECK_FAILED',
      });
      expect(pointer()).toEqual(back);
      expect(await version(back)).toBe(1);
      expect(notes()).toEqual(['one', 'today']);
      expect(existsSync(join(project(), 'deploy-in-flight.json'))).toBe(false);
      expect(appPids(projectId)).toHaveLength(1);
    } finally {
      writers.stop();
    }
    // Restores are stop-first: never two writers of the database.
    expect(writers.max()).toBe(1);
  }, 90_000);
});
