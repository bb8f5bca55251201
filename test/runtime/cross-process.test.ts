import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, openDatabase, type AppDatabase, type CommitEvent } from '../../src/runtime/index.js';
import { backend } from './support/tasks-backend.js';

const child = join(import.meta.dirname, 'support', 'write-from-child.ts');
let dir: string | undefined;
let db: AppDatabase | undefined;
afterEach(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Run the child writer; resolves with its parsed result; calls onLine for each stdout line. */
function runChild(path: string, count: number, holdMs = 0, onLine: (line: string) => void = () => {}): Promise<{ ids: string[]; revision: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, path, String(count), String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line.startsWith('{')) resolve(JSON.parse(line) as { ids: string[]; revision: number });
        else onLine(line);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`child exited with ${code}`));
    });
  });
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a second process writing the same database file', () => {
  it('is detected by polling and becomes exact external commit events', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-runtime-xp-'));
    const path = join(dir, 'app.db');
    db = openDatabase(backend.schema, { path, pollIntervalMs: 50 });
    const engine = createEngine(backend, db);
    engine.runMutation('notes/add', { title: 'parent', priority: 1 }, null);
    await new Promise((resolve) => setImmediate(resolve));
    const events: CommitEvent[] = [];
    db.onCommit((event) => events.push(event));
    const result = await runChild(path, 3);
    expect(result.revision).toBe(4);
    await waitFor(() => events.length >= 3);
    expect(events.map((e) => e.revision)).toEqual([2, 3, 4]);
    expect(events.every((e) => e.external === true && e.tables.has('notes') && !e.unknown)).toBe(true);
    expect(events.flatMap((e) => [...e.documents])).toEqual(result.ids);
    expect(db.revision()).toBe(4);
    // Our next commit continues the shared revision sequence.
    expect(engine.runMutation('notes/add', { title: 'after', priority: 1 }, null).revision).toBe(5);
    expect(engine.runQuery('notes/count', {}, null).value).toBe(5);
  });

  it('waits on the busy timeout instead of failing while the other process holds the write lock', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-runtime-xp-'));
    const path = join(dir, 'app.db');
    db = openDatabase(backend.schema, { path, pollIntervalMs: false });
    const engine = createEngine(backend, db);
    const events: CommitEvent[] = [];
    db.onCommit((event) => events.push(event));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const done = runChild(path, 1, 700, (line) => line === 'locked' && locked());
    await isLocked;
    const start = Date.now();
    const own = engine.runMutation('notes/add', { title: 'parent', priority: 1 }, null);
    expect(Date.now() - start).toBeGreaterThan(200);
    await done;
    // The child committed first (revision 1); ours is 2, and the child's commit is reported before ours.
    expect(own.revision).toBe(2);
    await waitFor(() => events.length >= 2);
    expect(events.map((e) => [e.revision, e.external === true])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('reports SVC_RUNTIME_BUSY (retryable 503) when the lock outlasts the busy timeout, writing nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-runtime-xp-'));
    const path = join(dir, 'app.db');
    db = openDatabase(backend.schema, { path, pollIntervalMs: false, busyTimeout: 100 });
    const engine = createEngine(backend, db);
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const done = runChild(path, 1, 1500, (line) => line === 'locked' && locked());
    await isLocked;
    let code: unknown;
    try {
      engine.runMutation('notes/add', { title: 'parent', priority: 1 }, null);
    } catch (error) {
      code = (error as { code?: unknown; status?: unknown }).code;
    }
    expect(code).toBe('SVC_RUNTIME_BUSY');
    await done;
    expect(engine.runQuery('notes/count', {}, null).value).toBe(1);
  });
});
