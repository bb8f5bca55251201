// Reading a service's log stream without an engine: frames cut anywhere across chunks, the engine's
// timestamp and details taken off each line (as dockerd 20.10 writes them), and where a resumed
// follow starts so that no stored line is written twice.
import { describe, expect, it } from 'vitest';
import { LogFrameReader } from '../../../runner/swarm/engine-log-frames.js';
import { admitResumed, advanceCursor, cursorFromEntries, parseLogFrame, resumeFrom, sinceOf, timestampMs } from '../../../runner/swarm/service-log-records.js';

function frame(type: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = type;
  head.writeUInt32BE(payload.length, 4);
  return Buffer.concat([head, payload]);
}

// A line exactly as the engine sends it with timestamps=1&details=1.
const DETAILS =
  'com.docker.swarm.node.id=iqfsn2wgashrn9gf3ewb2ww8p,com.docker.swarm.service.id=9vrdciczugrhp4qqke68hdqxg,com.docker.swarm.task.id=vxrz2tj5q2jxbeo6b0p1l3tgs';
const line = (time: string, text: string): string => `${time} ${DETAILS} ${text}\n`;

describe('LogFrameReader', () => {
  it('hands out frames once they are whole, however the chunks are cut', () => {
    const bytes = Buffer.concat([frame(1, 'one\n'), frame(2, 'two ü\n'), frame(1, 'three\n')]);
    for (const cut of [1, 3, 8, 9, 13, bytes.length - 1]) {
      const reader = new LogFrameReader();
      const frames = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
      expect(frames.map((f) => [f.stream, f.payload.toString()])).toEqual([
        ['stdout', 'one\n'],
        ['stderr', 'two ü\n'],
        ['stdout', 'three\n'],
      ]);
    }
  });

  it('passes bytes that are not framed (a TTY) as stdout', () => {
    const reader = new LogFrameReader();
    expect(reader.push(Buffer.from('plain text here\n')).map((f) => f.payload.toString())).toEqual(['plain text here\n']);
    expect(reader.push(Buffer.from('more\n')).map((f) => [f.stream, f.payload.toString()])).toEqual([['stdout', 'more\n']]);
  });
});

describe('parseLogFrame', () => {
  it('takes the time and the task off the line', () => {
    const [record] = parseLogFrame({ stream: 'stderr', payload: Buffer.from(line('2026-11-26T04:32:28.413849100Z', 'hello  world ')) }, 0);
    expect(record).toEqual({ stream: 'stderr', time: Date.parse('2026-11-26T04:32:28.413Z'), taskId: 'vxrz2tj5q2jxbeo6b0p1l3tgs', line: 'hello  world ' });
  });

  it('keeps an empty line, a line without details, and a line without a time (then stamped now)', () => {
    expect(parseLogFrame({ stream: 'stdout', payload: Buffer.from(line('2026-11-26T04:32:28Z', '')) }, 0)[0]).toMatchObject({
      line: '',
      taskId: 'vxrz2tj5q2jxbeo6b0p1l3tgs',
      time: Date.parse('2026-11-26T04:32:28Z'),
    });
    expect(parseLogFrame({ stream: 'stdout', payload: Buffer.from('2026-11-26T04:32:28.5+01:00 a=b c\n') }, 0)[0]).toMatchObject({
      line: 'a=b c',
      taskId: null,
      time: Date.parse('2026-11-26T03:32:28.500Z'),
    });
    expect(parseLogFrame({ stream: 'stdout', payload: Buffer.from('no time here\n') }, 42)).toEqual([
      { stream: 'stdout', time: 42, taskId: null, line: 'no time here' },
    ]);
  });

  it('reads the timestamp to the millisecond', () => {
    expect(timestampMs('2026-11-26T04:32:28.999999999Z')).toBe(Date.parse('2026-11-26T04:32:28.999Z'));
    expect(timestampMs('2026-11-26T04:32:28.1Z')).toBe(Date.parse('2026-11-26T04:32:28.100Z'));
    expect(timestampMs('yesterday')).toBeNull();
  });
});

describe('resuming a follow', () => {
  const at = (time: number, line: string, stream: 'stdout' | 'stderr' | 'system' = 'stdout') => ({ time, stream, releaseId: 'rel_1', line });

  it('starts at the newest stored output, counting the lines stored at that millisecond', () => {
    const cursor = cursorFromEntries([at(100, 'a'), at(105, 'b'), at(105, 'b'), at(105, 'c', 'stderr'), at(110, 'svc line', 'system'), at(104, 'late')]);
    expect(cursor?.ms).toBe(105);
    expect(cursor && sinceOf(cursor)).toBe('0.105000000');
    expect(sinceOf({ ms: 1_795_667_573_042, seen: new Map() })).toBe('1795667573.042000000');
    const resume = resumeFrom(cursor!);
    // The engine's since is inclusive: the stored lines at 105 come again, each is skipped once.
    const again = [at(105, 'b'), at(105, 'b'), at(105, 'b'), at(105, 'c', 'stderr'), at(105, 'd'), at(106, 'a')];
    expect(again.filter((r) => admitResumed(resume, r)).map((r) => r.line)).toEqual(['b', 'd', 'a']);
    expect(cursor?.seen.get('stdout\nb')).toBe(2); // the resume used a copy
  });

  it('has nothing to resume from without stored output', () => {
    expect(cursorFromEntries([at(5, 'deploy step', 'system')])).toBeNull();
  });

  it('moves forward with each stored line and ignores older ones', () => {
    let cursor = advanceCursor(null, at(10, 'x'));
    cursor = advanceCursor(cursor, at(9, 'old'));
    cursor = advanceCursor(cursor, at(10, 'x'));
    expect(cursor).toEqual({ ms: 10, seen: new Map([['stdout\nx', 2]]) });
    expect(advanceCursor(cursor, at(11, 'y'))).toEqual({ ms: 11, seen: new Map([['stdout\ny', 1]]) });
  });
});
