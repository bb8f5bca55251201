// A sandboxed app's listening socket as its namespace's /proc TCP table shows it.
import { describe, expect, it } from 'vitest';
import { hasListeningSocket } from '../../../runner/sandbox/app-listening.js';

const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';

describe('hasListeningSocket', () => {
  it('is true only for a socket in the LISTEN state', () => {
    expect(hasListeningSocket(header)).toBe(false);
    expect(hasListeningSocket(`${header}\n   0: 0100007F:A028 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 222 1`)).toBe(false);
    expect(hasListeningSocket(`${header}\n   0: 0100007F:A028 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1`)).toBe(true);
  });
});
