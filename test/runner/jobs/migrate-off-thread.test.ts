// Migrations run in a child process: same results and error codes as in-process, and a long migration
// leaves the control plane's event loop free.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { manualClock } from '../../../src/core/clock.js';
import { migrateOffThread } from '../../../runner/jobs/migrate-off-thread.js';
import { longestStall } from '../../support/longest-stall.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function release(files: Record<string, string>): Promise<{ dir: string; migrationsDir: string; databasePath: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-migrate-child-'));
  dirs.push(dir);
  const migrationsDir = join(dir, 'migrations');
  await mkdir(migrationsDir);
  for (const [name, sql] of Object.entries(files)) await writeFile(join(migrationsDir, name), sql);
  return { dir, migrationsDir, databasePath: join(dir, 'data', 'app.db') };
}

const policy = { allowUnsafeMigrations: false, operatorAllowsUnsafe: false };

it('applies pending migrations with the caller’s clock and reports them', async () => {
  const r = await release({ '0001_init.sql': 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);' });
  const result = await migrateOffThread({ ...r, ...policy, clock: manualClock(1_234_000) });
  expect(result).toEqual({ applied: ['0001_init.sql'], allowedUnsafe: [] });
  const db = new Database(r.databasePath, { readonly: true });
  expect(db.prepare('SELECT version, name, applied_at FROM _svc_migrations').all()).toEqual([{ version: 1, name: '0001_init.sql', applied_at: 1_234_000 }]);
  db.close();
});

it('keeps the codes: a failing statement is SVC_MIGRATION_FAILED naming the file, and nothing is applied', async () => {
  const r = await release({ '0001_init.sql': 'CREATE TABLE notes (id INTEGER PRIMARY KEY);', '0002_bad.sql': 'INSERT INTO missing (x) VALUES (1);' });
  await expect(migrateOffThread({ ...r, ...policy })).rejects.toMatchObject({ code: 'SVC_MIGRATION_FAILED', details: { file: '0002_bad.sql' } });
  const db = new Database(r.databasePath, { readonly: true });
  expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('notes', '_svc_migrations')").all()).toEqual([]);
  db.close();
});

it('a long migration does not block the event loop', async () => {
  const heavy = 'CREATE TABLE total AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8000000) SELECT sum(x) AS s FROM c;';
  const r = await release({ '0001_heavy.sql': heavy });
  const { stallMs: worstGap, tookMs: took } = await longestStall(() => migrateOffThread({ ...r, ...policy }));
  // The migration itself takes far longer than any pause the loop saw (run on the loop, the pause would be
  // the whole migration; on a loaded machine other processes still cause pauses of their own).
  expect(took).toBeGreaterThan(600);
  expect(worstGap).toBeLessThan(took / 3);
});

it('dies with the control plane: a parent killed mid-migration leaves no writer behind and nothing applied', async () => {
  const heavy = 'CREATE TABLE total AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) SELECT sum(x) AS s FROM c;';
  const r = await release({ '0001_heavy.sql': heavy });
  const parent = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support', 'migrate-parent.ts'), r.databasePath, r.migrationsDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const deadline = Date.now() + 20_000;
  const children = (): number[] => {
    const found: number[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (
          readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('migrate-main') &&
          readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(parent.pid)
        )
          found.push(Number(name));
      } catch {
        // Gone meanwhile.
      }
    }
    return found;
  };
  let child: number[] = [];
  while (child.length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    child = children();
  }
  expect(child.length, out).toBe(1);
  // Kill the parent while the child is inside the migration (its database is open by then).
  while (!existsSync(r.databasePath) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 300));
  parent.kill('SIGKILL');
  const gone = Date.now() + 5_000;
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  while (alive(child[0]!) && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
  expect(alive(child[0]!)).toBe(false);
  expect(out).not.toContain('finished');
  const db = new Database(r.databasePath);
  expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('total', '_svc_migrations')").all()).toEqual([]);
  db.close();
}, 60_000);
