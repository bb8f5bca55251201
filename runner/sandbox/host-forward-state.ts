// Whether the host side of an isolated sandbox's port forward (socat, a child of the launcher) listens on
// its port yet, from /proc. "gone" means it exited: it could not bind the port, which another process
// took after it was picked.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export type HostForwardState = 'listening' | 'starting' | 'gone';

/** States of the host forward, from the launcher's children (pid → command name) and the listening sockets. Pure. */
export function decideHostForward(children: ReadonlyMap<number, string>, listeningInodes: (pid: number) => ReadonlySet<string>): HostForwardState {
  for (const [pid, name] of children) {
    if (name === 'socat') return listeningInodes(pid).size > 0 ? 'listening' : 'starting';
    // The background job before it became socat (the launcher's forked shell, then setpriv).
    if (name === 'setpriv' || name === 'sh') return 'starting';
  }
  return 'gone';
}

/** The inodes of TCP sockets listening on 127.0.0.1:`port`, as /proc/net/tcp lists them. Pure. */
export function listeningInodesOn(procNetTcp: string, port: number): Set<string> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of procNetTcp.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
    if (fields[1] === local && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
  }
  return inodes;
}

function childrenOf(pid: number): Map<number, string> {
  let pids: number[];
  try {
    pids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((child) => {
        try {
          return readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(pid);
        } catch {
          return false;
        }
      });
  }
  const children = new Map<number, string>();
  for (const child of pids) {
    try {
      children.set(child, readFileSync(`/proc/${child}/comm`, 'utf8').trim());
    } catch {
      // Exited in between.
    }
  }
  return children;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // Closed in between.
      }
    }
  } catch {
    // Exited.
  }
  return inodes;
}

/** What the caller keeps across polls of one start, so most polls skip the TCP table. */
export interface ForwardPoll {
  /** socat's socket inodes when it was first seen (those it inherited: Node's stdio pipes are socket pairs). */
  baseline: ReadonlySet<string> | null;
  /** When the TCP table was last read (ms). */
  lastReadAt: number;
}

/** Longest a poll goes without reading the TCP table, so a socket opened just before `baseline` was taken is still noticed. */
export const FORWARD_TABLE_MAX_AGE_MS = 25;

/**
 * Whether this poll must read the TCP table: socat is seen for the first time, holds a socket it did not
 * start with (the listening one is always new), or the last read is FORWARD_TABLE_MAX_AGE_MS old. Pure.
 */
export function needsTableRead(sockets: ReadonlySet<string>, poll: ForwardPoll, now: number): boolean {
  if (sockets.size === 0) return false;
  if (poll.baseline === null || now - poll.lastReadAt >= FORWARD_TABLE_MAX_AGE_MS) return true;
  for (const inode of sockets) if (!poll.baseline.has(inode)) return true;
  return false;
}

/**
 * Read /proc: is the launcher's socat listening on 127.0.0.1:`port`? The TCP table is the host's whole
 * table (large on a busy host): re-read and parsed every poll while socat starts, it cost more event-loop
 * time than the rest of the start, so `poll` (kept by the caller) lets most polls look at socat's fds only.
 */
export function hostForwardState(launcherPid: number, port: number, poll: ForwardPoll, now: number = Date.now()): HostForwardState {
  return decideHostForward(childrenOf(launcherPid), (pid) => {
    const sockets = socketInodes(pid);
    if (!needsTableRead(sockets, poll, now)) {
      poll.baseline ??= sockets;
      return new Set();
    }
    poll.baseline ??= sockets;
    poll.lastReadAt = now;
    let table = '';
    try {
      table = readFileSync(`/proc/${pid}/net/tcp`, 'utf8');
    } catch {
      return new Set();
    }
    const listening = listeningInodesOn(table, port);
    return new Set([...sockets].filter((inode) => listening.has(inode)));
  });
}
