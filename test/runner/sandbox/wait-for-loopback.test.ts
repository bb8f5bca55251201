// The network helper must not attach before bubblewrap has set up the sandbox's loopback: checked on
// real network namespaces whose loopback comes up late, never, or whose process is gone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loopbackUp, waitForLoopback } from '../../../runner/sandbox/wait-for-loopback.js';
import { commandComponent, requireComponents } from '../../support/require-components.js';

const gate = requireComponents('loopback wait', [
  commandComponent('unshare and ip (util-linux, iproute2)', ['unshare', '-rn', 'ip', 'link', 'set', 'lo', 'up']),
]);

/** fib_trie of a fresh network namespace, after `script` ran in it. */
const freshTable = (script: string): string => spawnSync('unshare', ['-rn', 'sh', '-c', `${script} cat /proc/self/net/fib_trie`], { encoding: 'utf8' }).stdout;

describe.skipIf(gate.skip)('waitForLoopback', () => {
  const children: ChildProcess[] = [];
  beforeAll(() => gate.assertPresent());
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  /**
   * A process in a new network namespace that brings loopback up `delayMs` after it got there (never
   * when null). Resolves once the namespace is its own, as bubblewrap's reported pid always is.
   */
  async function namespace(delayMs: number | null): Promise<ChildProcess> {
    const script = delayMs === null ? 'sleep 30' : `sleep ${delayMs / 1000}; ip addr add 127.0.0.1/8 dev lo; ip link set lo up; sleep 30`;
    const child = spawn('unshare', ['-rn', 'sh', '-c', script], { stdio: 'ignore' });
    children.push(child);
    const own = readlinkSync('/proc/self/ns/net');
    const deadline = Date.now() + 5_000;
    while (readlinkSync(`/proc/${child.pid}/ns/net`) === own) {
      if (Date.now() > deadline) throw new Error('unshare did not create a network namespace');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return child;
  }

  it('reads loopback as up only with 127.0.0.1/8 on an interface that is up', () => {
    expect(loopbackUp(readFileSync('/proc/self/net/fib_trie', 'utf8'))).toBe(true);
    expect(loopbackUp(freshTable(''))).toBe(false);
    expect(loopbackUp(freshTable('ip addr add 127.0.0.1/8 dev lo;'))).toBe(false);
    expect(loopbackUp(freshTable('ip addr add 127.0.0.1/8 dev lo; ip link set lo up;'))).toBe(true);
  });

  it('waits until loopback comes up', async () => {
    const child = await namespace(300);
    const started = Date.now();
    await waitForLoopback(child.pid!, 5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(loopbackUp(readFileSync(`/proc/${child.pid}/net/fib_trie`, 'utf8'))).toBe(true);
  });

  it('gives up after the timeout, and at once when the process is gone', async () => {
    const never = await namespace(null);
    await expect(waitForLoopback(never.pid!, 200)).rejects.toThrow(/not up within 200 ms/);
    const gone = await namespace(null);
    gone.kill('SIGKILL');
    await new Promise((resolve) => gone.once('exit', resolve));
    const started = Date.now();
    await expect(waitForLoopback(gone.pid!, 5_000)).rejects.toThrow(/ended before/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
