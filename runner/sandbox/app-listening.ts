// Whether a sandboxed app listens yet, from its own network namespace's TCP tables: inside an isolated
// sandbox only the app opens TCP sockets (the inner forward listens on a UNIX socket, slirp4netns lives
// outside), so the tables are a few lines and any listening entry is the app's. A hint for the health
// check to probe at once (RunningApp.listening), never a health verdict.
import { readFileSync } from 'node:fs';

/** Any socket in the LISTEN state (st 0A) in a /proc/<pid>/net/tcp or tcp6 table. Pure. */
export function hasListeningSocket(table: string): boolean {
  for (const line of table.split('\n').slice(1)) if (line.trim().split(/\s+/)[3] === '0A') return true;
  return false;
}

const POLL_MS = 2;

/** Resolve once the namespace of `initPid` has a listening TCP socket; never while `signal` is aborted first or the sandbox is gone. */
export async function waitForAppListening(initPid: number, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    let tables: string[];
    try {
      tables = [readFileSync(`/proc/${initPid}/net/tcp`, 'utf8'), readFileSync(`/proc/${initPid}/net/tcp6`, 'utf8')];
    } catch {
      // The sandbox ended: the health check sees the exit itself.
      return new Promise<never>(() => {});
    }
    if (tables.some(hasListeningSocket)) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return new Promise<never>(() => {});
}
