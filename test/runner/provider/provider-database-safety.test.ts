// A provider deploy is as database-safe as the control plane's release transaction: the writer stops,
// the database is snapshotted and migrated, and a failed candidate (health or migration) gets the
// snapshot restored and the previous release restarted at the same address.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivePointer } from '../../../runner/provider/local-provider.js';
import type { ProviderArtifact } from '../../../runner/provider/provider-contract.js';
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
  artifacts['crash-on-boot'] = await packedFixtureWithMigrations('crash-on-boot', 'healthy-v2');
  node = openInProcessProvider(dir);
}, 60_000);
afterAll(async () => {
  await node.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

const project = (): string => join(dir, 'projects', 'prj_db');
const pointer = (): ActivePointer => JSON.parse(readFileSync(join(project(), 'active.json'), 'utf8')) as ActivePointer;
function query<T>(sql: string): T[] {
  const db = new Database(join(project(), 'data', 'app.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}
const version = async (p: ActivePointer): Promise<number> => ((await (await fetch(`http://${p.host}:${p.port}/healthz`)).json()) as { version: number }).version;

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
      await expect(node.provider.reconcile(reconcileRequest('prj_db', 2, artifacts['crash-on-boot']!))).rejects.toMatchObject({ code: 'SVC_HEALTH_CHECK_FAILED' });
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
});
