// The host forward's start-up as /proc shows it: listening, still starting, or gone (it could not bind).
import { describe, expect, it } from 'vitest';
import { decideHostForward, FORWARD_TABLE_MAX_AGE_MS, listeningInodesOn, needsTableRead } from '../../../runner/sandbox/host-forward-state.js';

const table = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:A028 00000000:0000 0A 00000000:00000000 00:00000000 00000000 200000        0 111 1 0000000000000000 100 0 0 10 0',
  '   1: 0100007F:A028 0100007F:C350 01 00000000:00000000 00:00000000 00000000 200000        0 222 1 0000000000000000 20 4 30 10 -1',
  '   2: 00000000:A028 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333 1 0000000000000000 100 0 0 10 0',
].join('\n');

describe('host forward state', () => {
  it('finds only sockets listening on 127.0.0.1 at the port', () => {
    expect(listeningInodesOn(table, 41000)).toEqual(new Set(['111']));
    expect(listeningInodesOn(table, 41001)).toEqual(new Set());
  });

  it('is listening once socat holds the listening socket, starting before, gone when it exited', () => {
    const listening = (inodes: string[]) => () => new Set(inodes);
    expect(
      decideHostForward(
        new Map([
          [10, 'bwrap'],
          [11, 'socat'],
        ]),
        listening(['111']),
      ),
    ).toBe('listening');
    expect(
      decideHostForward(
        new Map([
          [10, 'bwrap'],
          [11, 'socat'],
        ]),
        listening([]),
      ),
    ).toBe('starting');
    expect(decideHostForward(new Map([[11, 'setpriv']]), listening([]))).toBe('starting');
    expect(decideHostForward(new Map([[11, 'sh']]), listening([]))).toBe('starting');
    expect(decideHostForward(new Map([[10, 'bwrap']]), listening([]))).toBe('gone');
    expect(decideHostForward(new Map(), listening([]))).toBe('gone');
  });
});

describe('when a poll reads the TCP table', () => {
  it('on the first look at socat, on a socket it did not start with, and at least every FORWARD_TABLE_MAX_AGE_MS', () => {
    const inherited = new Set(['1', '2']);
    expect(needsTableRead(new Set(), { baseline: null, lastReadAt: 0 }, 100)).toBe(false);
    expect(needsTableRead(inherited, { baseline: null, lastReadAt: 0 }, 100)).toBe(true);
    expect(needsTableRead(inherited, { baseline: inherited, lastReadAt: 100 }, 101)).toBe(false);
    expect(needsTableRead(new Set(['1', '2', '3']), { baseline: inherited, lastReadAt: 100 }, 101)).toBe(true);
    expect(needsTableRead(inherited, { baseline: inherited, lastReadAt: 100 }, 100 + FORWARD_TABLE_MAX_AGE_MS)).toBe(true);
  });
});
