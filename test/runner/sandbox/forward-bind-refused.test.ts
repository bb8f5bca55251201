import { describe, expect, it } from 'vitest';
import { forwardBindRefused } from '../../../runner/sandbox/sandbox-runner.js';

describe('forwardBindRefused', () => {
  const socat = '2026/11/26 09:07:53 socat[3889] E bind(5, {AF=2 127.0.0.1:33711}, 16): Address already in use setsid: wait: Success';
  it("recognises socat's refused bind of the chosen port", () => {
    expect(forwardBindRefused(socat, 33711)).toBe(true);
  });
  it('ignores another port, and other failures', () => {
    expect(forwardBindRefused(socat, 33712)).toBe(false);
    expect(forwardBindRefused('bwrap: Creating new namespace failed: Operation not permitted', 33711)).toBe(false);
    expect(forwardBindRefused('', 33711)).toBe(false);
  });
});
