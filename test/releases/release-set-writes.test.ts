// A state transition writes only the releases it changes: a deploy rewrites the prior active release and
// the candidate, never the older inactive ones (a SQLite trigger records every UPDATE of the table).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packFixture, removeDataDir, startPlane, type Plane } from './release-support.js';

let plane: Plane;

beforeAll(async () => {
  plane = await startPlane();
}, 60_000);
afterAll(async () => {
  await plane?.close();
  if (plane) await removeDataDir(plane.dataDir);
});

describe('release set writes', () => {
  it('leaves unchanged inactive releases untouched when a deploy settles', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await plane.upload(
        await packFixture('healthy', plane.dataDir, async (_dir, config) => ({ ...config, env: { ...config.env, V: String(i) } })),
      );
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as { release: { id: string; status: string } }).release.id);
    }
    const db = plane.plane.db;
    db.exec(
      `CREATE TEMP TABLE release_writes (id TEXT); CREATE TEMP TRIGGER count_release_writes AFTER UPDATE ON releases BEGIN INSERT INTO release_writes VALUES (OLD.id); END;`,
    );
    const last = await plane.upload(await packFixture('healthy', plane.dataDir, async (_dir, config) => ({ ...config, env: { ...config.env, V: 'last' } })));
    expect(last.statusCode, last.body).toBe(201);
    const written = new Set((db.prepare('SELECT id FROM release_writes').all() as { id: string }[]).map((r) => r.id));
    expect(written.has(ids[2]!)).toBe(true); // the prior active release was demoted
    expect(written.has(ids[0]!)).toBe(false);
    expect(written.has(ids[1]!)).toBe(false);
  }, 120_000);
});
