// Fault: the server restarts mid-stream; the client reconnects (Last-Event-ID) and resyncs to a full snapshot.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type SvcClient } from '../../../src/runtime/client/index.js';
import { until } from './support/until.js';

const run = promisify(execFile);
const support = join(import.meta.dirname, 'support');
const children: ChildProcess[] = [];
let client: SvcClient | null = null;
let dir = '';

afterEach(async () => {
  client?.close();
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function startServer(dbPath: string, port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(support, 'tasks-server-main.ts'), dbPath, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 30_000);
    createInterface({ input: child.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

describe('live queries across a server restart', () => {
  it('reconnects after a crash and receives a complete current snapshot, then live updates', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-live-restart-'));
    const dbPath = join(dir, 'app.db');
    const first = await startServer(dbPath);
    client = createClient({ url: `http://127.0.0.1:${first.port}`, reconnect: { initialMs: 50, maxMs: 300 }, idleTimeoutMs: 2_000 });
    const sub = client.live<{ text: string }[]>('tasks/list', { list: 'r' });
    await until(sub, (s) => !s.loading);
    await client.mutation('tasks/add', { text: 'before', list: 'r' });
    await until(sub, (s) => s.data?.length === 1);

    // Crash mid-stream; while it is down another process commits, so the client must resync, not just resume.
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;
    await run(process.execPath, ['--import', 'tsx', join(support, 'write-task-main.ts'), dbPath, 'while-down', 'r'], { timeout: 30_000 });
    await startServer(dbPath, first.port);

    const resynced = await until(sub, (s) => s.data?.length === 2, 20_000);
    expect(resynced.data!.map((t) => t.text)).toEqual(['before', 'while-down']);
    expect(resynced.version).toBe(2); // the persisted revision survived the restart
    await client.mutation('tasks/add', { text: 'after', list: 'r' });
    const after = await until(sub, (s) => s.data?.length === 3);
    expect(after.version).toBe(3);
    expect(after.error).toBeNull();
  });
});
