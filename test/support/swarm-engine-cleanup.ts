// Leftovers a test dockerd can leave when it dies hard: its containerd and shims (and the shims'
// container processes), and mounts under its roots (netns bind mounts, overlay layers, the root's
// own shared bind mount). Everything is found by the engine's unique temp dir, never by a name.
import { readdirSync, readFileSync } from 'node:fs';
import { command } from '../../src/core/command.js';
import { execCommand } from '../../src/core/exec.js';
import { alive } from './process-alive.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** pid → parent pid of every process that can be read. */
function processTable(): Map<number, { ppid: number; cmdline: string }> {
  const table = new Map<number, { ppid: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(entry), { ppid, cmdline });
    } catch {
      // Exited while reading.
    }
  }
  return table;
}

/** Live processes whose command line names `dir`, with all their descendants. */
export function processesUnder(dir: string): number[] {
  const table = processTable();
  const found = new Set<number>();
  for (const [pid, { cmdline }] of table) if (cmdline.includes(dir) && pid !== process.pid) found.add(pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, { ppid }] of table) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found].filter(alive);
}

/** TERM, wait up to `graceMs`, then KILL; resolves when none of `pids` is alive (or after 10 s more). */
export async function terminate(pids: number[], graceMs: number): Promise<void> {
  const signal = (sig: NodeJS.Signals): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {
        // Already gone.
      }
    }
  };
  signal('SIGTERM');
  for (let waited = 0; waited < graceMs && pids.some(alive); waited += 100) await sleep(100);
  if (!pids.some(alive)) return;
  signal('SIGKILL');
  for (let waited = 0; waited < 10_000 && pids.some(alive); waited += 100) await sleep(100);
}

/** Mount points at or under `dir`, deepest first (mountinfo escapes spaces as octal). */
export function mountsUnder(dir: string, mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): string[] {
  const points = mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Lazily unmount everything under `dir` until nothing is left (mounts can be stacked). */
export async function unmountUnder(dir: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const points = mountsUnder(dir);
    if (points.length === 0) return;
    for (const point of points) await execCommand(command('umount', ['--lazy', point]));
  }
  const left = mountsUnder(dir);
  if (left.length) throw new Error(`mounts left under ${dir}: ${left.join(', ')}`);
}
