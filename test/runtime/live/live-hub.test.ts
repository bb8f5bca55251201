import { afterEach, describe, expect, it } from 'vitest';
import { LiveError, LiveHub, liveResponse, type LiveHubInit, type LiveOpenRequest } from '../../../src/runtime/live/index.js';
import { ScriptedSource } from './scripted-source.js';
import { isEnd, isError, isSnapshot, readSse } from './sse-reader.js';

const hubs: LiveHub[] = [];
afterEach(() => {
  hubs.splice(0).forEach((h) => h.close());
});

function setup(init: LiveHubInit = {}): { source: ScriptedSource; hub: LiveHub } {
  const source = new ScriptedSource();
  const hub = new LiveHub(source, init);
  hubs.push(hub);
  return { source, hub };
}

function open(hub: LiveHub, req: LiveOpenRequest): ReturnType<typeof readSse> {
  const conn = hub.open(req);
  return readSse(liveResponse(conn, hub.options.maxQueueBytes).body!);
}

const snapshot = (e: { data?: string }): { value: unknown; revision: number } => JSON.parse(e.data!) as { value: unknown; revision: number };

describe('LiveHub', () => {
  it('shares one execution between subscribers of the same function and canonical arguments', async () => {
    const { source, hub } = setup();
    source.write('tasks', 't1', 'a');
    const s1 = open(hub, { path: 'list', args: { table: 'tasks', x: 1 } });
    const s2 = open(hub, { path: 'list', args: { x: 1, table: 'tasks' } });
    const s3 = open(hub, { path: 'list', args: { table: 'tasks', x: 1 } });
    for (const s of [s1, s2, s3]) {
      const e = await s.next(isSnapshot);
      expect(e.id).toBe('1');
      expect(snapshot(e)).toEqual({ value: ['a'], revision: 1 });
    }
    expect(source.runs).toHaveLength(1);
    expect(hub.stats().queries).toBe(1);
    source.write('tasks', 't2', 'b');
    for (const s of [s1, s2, s3]) expect(snapshot(await s.next(isSnapshot))).toEqual({ value: ['a', 'b'], revision: 2 });
    expect(source.runs).toHaveLength(2);
  });

  it('partitions shared executions by identity', async () => {
    const { source, hub } = setup();
    const a = open(hub, { path: 'list', args: { table: 'tasks' }, partition: 'u1' });
    const b = open(hub, { path: 'list', args: { table: 'tasks' }, partition: 'u2' });
    await a.next(isSnapshot);
    await b.next(isSnapshot);
    expect(source.runs).toHaveLength(2);
    expect(hub.stats().queries).toBe(2);
  });

  it('reruns only queries whose dependencies a commit touched', async () => {
    const { source, hub } = setup();
    source.write('tasks', 't1', 'a');
    source.write('notes', 'n1', 'x');
    await new Promise((r) => setImmediate(r)); // let those commit events pass before subscribing
    const tasks = open(hub, { path: 'list', args: { table: 'tasks' } });
    const notes = open(hub, { path: 'list', args: { table: 'notes' } });
    const doc = open(hub, { path: 'get', args: { id: 'n1' } });
    await tasks.next(isSnapshot);
    await notes.next(isSnapshot);
    await doc.next(isSnapshot);
    source.runs.length = 0;
    source.write('tasks', 't2', 'b');
    expect(snapshot(await tasks.next(isSnapshot)).value).toEqual(['a', 'b']);
    expect(source.runs).toEqual(['list:{"table":"tasks"}']);
    source.runs.length = 0;
    source.write('notes', 'n2', 'y'); // table write: reruns the table query, not get(n1)
    await notes.next(isSnapshot);
    expect(source.runs).toEqual(['list:{"table":"notes"}']);
    source.runs.length = 0;
    source.write('notes', 'n1', 'z');
    expect(snapshot(await doc.next(isSnapshot))).toEqual({ value: 'z', revision: 5 });
    expect(source.runs.sort()).toEqual(['get:{"id":"n1"}', 'list:{"table":"notes"}']);
  });

  it('coalesces commits arriving together into one rerun at the latest revision', async () => {
    const { source, hub } = setup();
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next(isSnapshot);
    source.runs.length = 0;
    for (let i = 0; i < 5; i++) source.write('tasks', `t${i}`, i);
    const e = await s.next(isSnapshot);
    expect(e.id).toBe('5');
    expect(snapshot(e).value).toEqual([0, 1, 2, 3, 4]);
    expect(source.runs).toHaveLength(1);
  });

  it('does not push when a rerun produced the same value', async () => {
    const { source, hub } = setup();
    source.write('tasks', 't1', 'a');
    await new Promise((r) => setImmediate(r));
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next(isSnapshot);
    source.write('tasks', 't1', 'a');
    await new Promise((r) => setTimeout(r, 20)); // that rerun happens and pushes nothing
    source.write('tasks', 't2', 'b');
    expect(snapshot(await s.next(isSnapshot)).value).toEqual(['a', 'b']);
    expect(source.runs).toHaveLength(3);
    expect(s.events.filter(isSnapshot).map((e) => e.id)).toEqual(['1', '3']);
  });

  it('sends a complete current snapshot to a reconnecting client (Last-Event-ID)', async () => {
    const { source, hub } = setup();
    const first = open(hub, { path: 'list', args: { table: 'tasks' } });
    await first.next(isSnapshot);
    source.write('tasks', 't1', 'a');
    await first.next(isSnapshot);
    const again = open(hub, { path: 'list', args: { table: 'tasks' }, lastEventId: '1' });
    const e = await again.next(isSnapshot);
    expect(e.id).toBe('1');
    expect(snapshot(e)).toEqual({ value: ['a'], revision: 1 });
  });

  it('gives a subscriber joining while a rerun is pending the current snapshot even if the rerun changes nothing', async () => {
    const { source, hub } = setup();
    source.write('tasks', 't1', 'a');
    await new Promise((r) => setImmediate(r));
    const first = open(hub, { path: 'list', args: { table: 'tasks' } });
    await first.next(isSnapshot);
    source.write('tasks', 't1', 'a'); // same value: the rerun will not push
    await new Promise((r) => setImmediate(r)); // commit event delivered, rerun scheduled but not run yet
    const late = open(hub, { path: 'list', args: { table: 'tasks' } });
    expect(snapshot(await late.next(isSnapshot, 1_000))).toEqual({ value: ['a'], revision: 1 });
  });

  it('fans out in slices without ever sending a subscriber an older snapshot after a newer one', async () => {
    const { source, hub } = setup({ fanoutSliceMs: 0.1 });
    // Slow revalidation makes every 64-write slice exceed the budget, so the fan-out yields.
    const slow = (): boolean => {
      const end = performance.now() + 0.01;
      while (performance.now() < end);
      return true;
    };
    const subs = Array.from({ length: 200 }, () => open(hub, { path: 'list', args: { table: 'tasks' }, revalidate: slow }));
    for (const s of subs) await s.next(isSnapshot);
    source.write('tasks', 't1', 'a');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    source.write('tasks', 't2', 'b'); // lands while the first fan-out is still in progress
    for (const s of subs) {
      await s.next((e) => isSnapshot(e) && e.id === '2');
      const ids = s.events.filter(isSnapshot).map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
    }
  });

  it('bounds payloads: an oversized snapshot becomes a fatal error event and the stream ends', async () => {
    const { source, hub } = setup({ maxPayloadBytes: 1024 });
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next(isSnapshot);
    source.write('tasks', 't1', 'x'.repeat(2048));
    const e = await s.next(isError);
    expect(JSON.parse(e.data!)).toMatchObject({ code: 'SVC_LIVE_PAYLOAD_TOO_LARGE', fatal: true });
    await s.next(isEnd);
    expect(hub.stats().connections).toBe(0);
  });

  it('emits heartbeats at the configured interval', async () => {
    const { hub } = setup({ heartbeatMs: 20 });
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next((e) => e.kind === 'comment' && e.data?.trim() === 'heartbeat', 2_000);
    await s.next((e) => e.kind === 'comment' && e.data?.trim() === 'heartbeat', 2_000);
  });

  it('closes the stream of a revoked session on the next push', async () => {
    const { source, hub } = setup();
    let valid = true;
    const s = open(hub, { path: 'list', args: { table: 'tasks' }, partition: 's1', revalidate: () => valid });
    await s.next(isSnapshot);
    valid = false;
    source.write('tasks', 't1', 'a');
    expect(JSON.parse((await s.next(isError)).data!)).toMatchObject({ code: 'SVC_LIVE_SESSION_REVOKED', fatal: true });
    await s.next(isEnd);
    expect(s.events.filter(isSnapshot)).toHaveLength(1);
  });

  it('enforces a configurable connection limit with a typed error', async () => {
    const { hub } = setup({ maxConnections: 2 });
    open(hub, { path: 'list', args: { table: 'a' } });
    open(hub, { path: 'list', args: { table: 'b' } });
    expect(() => hub.open({ path: 'list', args: { table: 'c' } })).toThrow(LiveError);
    try {
      hub.open({ path: 'list', args: { table: 'c' } });
    } catch (error) {
      expect((error as LiveError).code).toBe('SVC_LIVE_TOO_MANY_CONNECTIONS');
      expect((error as LiveError).status).toBe(503);
    }
  });

  it('disconnects a consumer that does not read (bounded per-connection queue)', async () => {
    const { source, hub } = setup({ maxQueueBytes: 4096, maxPayloadBytes: 64 * 1024 });
    const conn = hub.open({ path: 'list', args: { table: 'tasks' } });
    const body = liveResponse(conn, hub.options.maxQueueBytes).body!; // never read
    for (let i = 0; i < 4; i++) {
      source.write('tasks', `t${i}`, 'y'.repeat(1500));
      await new Promise((r) => setTimeout(r, 5));
    }
    await expect.poll(() => conn.closed).toBe(true);
    expect(hub.stats()).toMatchObject({ connections: 0, slowConsumersDropped: 1 });
    await expect(body.getReader().read()).rejects.toMatchObject({ code: 'SVC_LIVE_SLOW_CONSUMER' });
  });

  it('reports query errors as non-fatal error events and recovers on the next change', async () => {
    const { source, hub } = setup();
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next(isSnapshot);
    source.failWith = new Error('secret internals');
    source.write('tasks', 't1', 'a');
    const e = JSON.parse((await s.next(isError)).data!) as { code: string; message: string; fatal: boolean };
    expect(e).toEqual({ code: 'SVC_LIVE_QUERY_FAILED', message: 'internal error', fatal: false });
    source.failWith = null;
    source.write('tasks', 't2', 'b');
    expect(snapshot(await s.next(isSnapshot))).toEqual({ value: ['a', 'b'], revision: 2 });
  });

  it('drops the shared query when its last subscriber leaves', async () => {
    const { source, hub } = setup();
    const s = open(hub, { path: 'list', args: { table: 'tasks' } });
    await s.next(isSnapshot);
    await s.cancel();
    await expect.poll(() => hub.stats()).toMatchObject({ connections: 0, queries: 0 });
    source.runs.length = 0;
    source.write('tasks', 't1', 'a');
    await new Promise((r) => setTimeout(r, 5));
    expect(source.runs).toHaveLength(0);
  });
});
