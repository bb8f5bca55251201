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

/** Read /proc: is the launcher's socat listening on 127.0.0.1:`port`? */
export function hostForwardState(launcherPid: number, port: number): HostForwardState {
  return decideHostForward(childrenOf(launcherPid), (pid) => {
    // socat's own fds first: until it holds a socket it cannot be listening, and the TCP table it would
    // be looked up in is the host's whole table (large on a busy host), read every poll while socat starts.
    const sockets = socketInodes(pid);
    if (sockets.size === 0) return sockets;
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
