// bubblewrap configures the sandbox's loopback itself (netlink, right after creating the namespace)
// while it already reported the sandbox's pid. slirp4netns attached to the namespace during that
// window makes bubblewrap's netlink request fail ("loopback: Failed RTM_NEWADDR") and the start fail
// — a few percent of starts on a busy host. So the network helper waits until loopback is up.
import { readFileSync } from 'node:fs';

/**
 * Whether a namespace's `/proc/<pid>/net/fib_trie` shows loopback configured and up. The broadcast
 * route of 127.0.0.0/8 exists only once 127.0.0.1/8 is on an interface that is up — bubblewrap's
 * last loopback step. Pure.
 */
export function loopbackUp(fibTrie: string): boolean {
  return fibTrie.includes('127.255.255.255');
}

/**
 * Resolve once the network namespace of `pid` has loopback up. Rejects with a plain Error when the
 * process ends or time runs out: the caller adds bubblewrap's own words about why.
 */
export async function waitForLoopback(pid: number, timeoutMs: number, pollMs = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let table: string;
    try {
      table = readFileSync(`/proc/${pid}/net/fib_trie`, 'utf8');
    } catch {
      throw new Error('the sandbox ended before its loopback interface was set up');
    }
    if (loopbackUp(table)) return;
    if (Date.now() > deadline) throw new Error(`the sandbox's loopback interface was not up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
