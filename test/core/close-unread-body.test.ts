// When an answer closes the connection instead of leaving Node to drain an unread body. Pure.
import { describe, expect, it } from 'vitest';
import { mustCloseAfterReply, SMALL_UNREAD_BODY_BYTES } from '../../src/core/http/close-unread-body.js';

describe('mustCloseAfterReply', () => {
  it.each([
    // status, body complete, declared length, close?
    [413, false, String(200 * 1024 * 1024), true],
    [401, false, String(SMALL_UNREAD_BODY_BYTES + 1), true],
    [408, false, undefined, true], // chunked: the rest is of unknown size
    [400, false, 'not-a-number', true],
    [401, false, String(SMALL_UNREAD_BODY_BYTES), false], // cheap to discard: keep the connection
    [401, false, '2', false],
    [408, false, '2', true], // a stalled body never drains, however small
    [413, true, String(200 * 1024 * 1024), false], // everything already arrived
    [201, false, String(200 * 1024 * 1024), false], // success answers never cut a body short
    [413, undefined, String(200 * 1024 * 1024), false], // injected request: no connection
  ] as const)('status %i, complete %s, length %s → %s', (status, complete, length, close) => {
    expect(mustCloseAfterReply(status, complete, length)).toBe(close);
  });
});
