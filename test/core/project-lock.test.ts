import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { ProjectLocks, staleReason, type StaleLockInfo } from '../../src/core/project-lock.js';
import { parseProcStatStartTime, processStartTime } from '../../src/core/process-identity.js';

let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Start a child that takes the lock; resolves once it printed LOCKED. */
function lockInChild(projectId: string, operation: string): Promise<{ child: ChildProcess; token: string; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'lock-child.ts'), dir, projectId, operation], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        lines.push(line);
        if (line.startsWith('LOCKED ')) resolve({ child, token: line.slice(7), lines });
      }
    });
    child.once('exit', (code) => reject(new Error(`lock child exited early with ${code}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

function newLocks(recovered: StaleLockInfo[] = []): ProjectLocks {
  return new ProjectLocks({ dir, onStaleLockRecovered: (info) => recovered.push(info), pollIntervalMs: 20 });
}

describe('ProjectLocks', () => {
  it('writes a complete lock file with the holder and removes it on release', async () => {
    const locks = newLocks();
    const handle = await locks.acquire('proj_1', 'deploy');
    const onDisk = JSON.parse(await readFile(join(dir, 'proj_1.lock'), 'utf8'));
    expect(onDisk).toMatchObject({ pid: process.pid, operation: 'deploy', hostname: hostname(), token: handle.holder.token });
    expect(onDisk.processStartTime).toBe(processStartTime(process.pid));
    expect(await locks.holder('proj_1')).toEqual(handle.holder);
    await handle.release();
    expect(await locks.holder('proj_1')).toBeNull();
    await expect(handle.release()).rejects.toSatisfy((e) => isSvcError(e, 'SVC_LOCK_NOT_HELD'));
  });

  it('fails at once with SVC_PROJECT_LOCKED naming the holder operation', async () => {
    const locks = newLocks();
    const handle = await locks.acquire('proj_1', 'backup');
    const error = await locks.acquire('proj_1', 'deploy').catch((e: unknown) => e);
    expect(isSvcError(error, 'SVC_PROJECT_LOCKED')).toBe(true);
    expect((error as { details: { operation: string } }).details.operation).toBe('backup');
    // Other projects are independent.
    const other = await locks.acquire('proj_2', 'deploy');
    await other.release();
    await handle.release();
  });

  it('queues in-process waiters in arrival order', async () => {
    const locks = newLocks();
    const first = await locks.acquire('p', 'deploy');
    const order: string[] = [];
    const waiters = ['rollback', 'cleanup', 'backup'].map((op) =>
      locks.acquire('p', op, { waitMs: 5_000 }).then(async (h) => {
        order.push(op);
        await new Promise((r) => setTimeout(r, 10));
        await h.release();
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual([]);
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual(['rollback', 'cleanup', 'backup']);
  });

  it('times out a waiter and honours an abort signal', async () => {
    const locks = newLocks();
    const held = await locks.acquire('p', 'deploy');
    const started = Date.now();
    await expect(locks.acquire('p', 'rollback', { waitMs: 150 })).rejects.toSatisfy((e) => isSvcError(e, 'SVC_PROJECT_LOCKED'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const controller = new AbortController();
    const pending = locks.acquire('p', 'rollback', { waitMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop waiting')), 30);
    await expect(pending).rejects.toThrow('stop waiting');
    await held.release();
    // The aborted waiter left the queue: the lock is free for the next caller.
    await (await locks.acquire('p', 'deploy')).release();
  });

  it('excludes another process and takes over when it releases', async () => {
    const { child } = await lockInChild('p', 'deploy');
    const locks = newLocks();
    await expect(locks.acquire('p', 'rollback')).rejects.toSatisfy((e) => isSvcError(e, 'SVC_PROJECT_LOCKED'));
    const waiting = locks.acquire('p', 'rollback', { waitMs: 10_000 });
    child.stdin!.write('release\n');
    const handle = await waiting;
    expect(handle.holder.operation).toBe('rollback');
    await handle.release();
  });

  it('recovers and reports a lock whose holder was killed with SIGKILL', async () => {
    const { child, token } = await lockInChild('p', 'deploy');
    child.kill('SIGKILL');
    await exited(child);
    const recovered: StaleLockInfo[] = [];
    const locks = newLocks(recovered);
    const handle = await locks.acquire('p', 'rollback');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]).toMatchObject({ projectId: 'p', reason: 'dead', recoveredBy: 'rollback', holder: { pid: child.pid, operation: 'deploy', token } });
    await handle.release();
  });

  it('lets a live process recover a lock left by a killed one, exactly once', async () => {
    const first = await lockInChild('p', 'deploy');
    first.child.kill('SIGKILL');
    await exited(first.child);
    const second = await lockInChild('p', 'backup');
    expect(second.lines.some((l) => l.startsWith('STALE ') && l.includes('"reason":"dead"'))).toBe(true);
    const recovered: StaleLockInfo[] = [];
    await expect(newLocks(recovered).acquire('p', 'rollback')).rejects.toSatisfy((e) => isSvcError(e, 'SVC_PROJECT_LOCKED'));
    expect(recovered).toEqual([]);
  });

  it('several processes racing for a stale lock: one recovery report, then strict one-at-a-time', async () => {
    const dead = await lockInChild('p', 'deploy');
    dead.child.kill('SIGKILL');
    await exited(dead.child);
    const contenders = [0, 1, 2].map(() => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'lock-child.ts'), dir, 'p', 'backup'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      const state = { child, out: '' };
      child.stdout!.on('data', (c: Buffer) => (state.out += c.toString()));
      return state;
    });
    const deadline = Date.now() + 20_000;
    for (let round = 1; round <= 3; round++) {
      // Exactly `round` contenders have held the lock so far; the newest holder is released next.
      let holders: typeof contenders = [];
      while ((holders = contenders.filter((c) => c.out.includes('LOCKED'))).length < round) {
        if (Date.now() > deadline) throw new Error(`round ${round}: no holder`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(holders).toHaveLength(round);
      const current = holders.find((c) => !c.out.includes('RELEASED'))!;
      current.child.stdin!.write('release\n');
      await exited(current.child);
    }
    const reports = contenders.flatMap((c) => c.out.split('\n').filter((l) => l.startsWith('STALE ')));
    expect(reports).toHaveLength(1);
    expect(JSON.parse(reports[0]!.slice(6))).toMatchObject({ reason: 'dead', holder: { pid: dead.child.pid } });
  });

  it('treats a reused pid (same pid, other start time) and an unreadable file as stale', async () => {
    const recovered: StaleLockInfo[] = [];
    const locks = newLocks(recovered);
    const forged = { pid: process.pid, processStartTime: '1', hostname: hostname(), operation: 'deploy', acquiredAt: 0, token: 'x'.repeat(32) };
    await writeFile(join(dir, 'p.lock'), JSON.stringify(forged));
    await (await locks.acquire('p', 'cleanup')).release();
    await writeFile(join(dir, 'p.lock'), '{"pid": 12');
    await (await locks.acquire('p', 'cleanup')).release();
    expect(recovered.map((r) => r.reason)).toEqual(['pid-reused', 'unreadable']);
  });

  it('never recovers a lock held on another host', async () => {
    const recovered: StaleLockInfo[] = [];
    const foreign = { pid: 999_999, processStartTime: null, hostname: 'elsewhere', operation: 'deploy', acquiredAt: 0, token: 'y'.repeat(32) };
    await writeFile(join(dir, 'p.lock'), JSON.stringify(foreign));
    await expect(newLocks(recovered).acquire('p', 'rollback')).rejects.toSatisfy((e) => isSvcError(e, 'SVC_PROJECT_LOCKED'));
    expect(recovered).toEqual([]);
    expect(staleReason(foreign)).toBeNull();
  });

  it('rejects project ids that could escape the lock directory', async () => {
    await expect(newLocks().acquire('../x', 'deploy')).rejects.toSatisfy((e) => isSvcError(e, 'SVC_VALIDATION'));
  });
});

describe('parseProcStatStartTime', () => {
  it('reads field 22 even when the command name has spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    expect(parseProcStatStartTime(`123 (we ird) name) ${fields.join(' ')}`)).toBe('22');
    expect(parseProcStatStartTime('garbage')).toBeNull();
  });
});
