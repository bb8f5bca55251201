import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { LogStore, type LogEntry } from '../../runner/log-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-logs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (time: number, line: string, stream: LogEntry['stream'] = 'stdout', releaseId = 'rel_1'): LogEntry => ({ time, stream, releaseId, line });

describe('LogStore', () => {
  it('reads back entries with since, stream, release and limit filters, oldest first', () => {
    const logs = new LogStore({ dir });
    logs.append('p', [entry(1, 'a'), entry(2, 'b', 'stderr'), entry(3, 'c', 'stdout', 'rel_2'), entry(4, 'd')]);
    expect(logs.read('p').map((e) => e.line)).toEqual(['a', 'b', 'c', 'd']);
    expect(logs.read('p', { since: 3 }).map((e) => e.line)).toEqual(['c', 'd']);
    expect(logs.read('p', { stream: 'stderr' }).map((e) => e.line)).toEqual(['b']);
    expect(logs.read('p', { releaseId: 'rel_2' }).map((e) => e.line)).toEqual(['c']);
    expect(logs.read('p', { limit: 2 }).map((e) => e.line)).toEqual(['c', 'd']);
    expect(logs.read('other')).toEqual([]);
  });

  it('stores each line as JSON {time, stream, releaseId, line}, even with newlines and quotes inside', () => {
    const logs = new LogStore({ dir });
    logs.append('p', [entry(1, 'say "hi"\\n {not json')]);
    expect(logs.read('p')).toEqual([entry(1, 'say "hi"\\n {not json')]);
  });

  it('rotates by size and keeps N files, reading across them', () => {
    const logs = new LogStore({ dir, maxFileBytes: 400, keepFiles: 2 });
    for (let i = 0; i < 40; i++) logs.append('p', [entry(i, `line-${String(i).padStart(3, '0')}`)]);
    expect(existsSync(join(dir, 'p', 'app.log.1'))).toBe(true);
    expect(existsSync(join(dir, 'p', 'app.log.2'))).toBe(true);
    expect(existsSync(join(dir, 'p', 'app.log.3'))).toBe(false);
    const lines = logs.read('p', { limit: 10_000 }).map((e) => e.line);
    // The newest lines survive in order; the oldest were dropped with the oldest file.
    expect(lines.at(-1)).toBe('line-039');
    expect(lines.length).toBeLessThan(40);
    expect(lines).toEqual([...lines].sort());
    expect(logs.read('p', { limit: 3 }).map((e) => e.line)).toEqual(['line-037', 'line-038', 'line-039']);
  });

  it('cuts over-long lines', () => {
    const logs = new LogStore({ dir, maxLineChars: 10 });
    logs.append('p', [entry(1, 'x'.repeat(50))]);
    expect(logs.read('p')[0]!.line).toBe(`${'x'.repeat(10)}…`);
  });

  it('follows new matching entries until aborted', async () => {
    const logs = new LogStore({ dir, clock: manualClock(5) });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of logs.follow('p', { stream: 'stdout' }, controller.signal)) {
        seen.push(e.line);
        if (seen.length === 2) controller.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 10));
    logs.append('p', [entry(1, 'one'), entry(2, 'skip', 'stderr')]);
    logs.append('other', [entry(3, 'elsewhere')]);
    logs.system('p', 'rel_1', 'not stdout');
    logs.append('p', [entry(4, 'two')]);
    await done;
    expect(seen).toEqual(['one', 'two']);
  });

  it('rejects project ids that could escape the log directory', () => {
    expect(() => new LogStore({ dir }).append('../x', [entry(1, 'a')])).toThrow(expect.objectContaining({ code: 'SVC_VALIDATION' }));
  });
});
