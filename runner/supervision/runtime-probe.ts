// Effects for verifying and ending a supervised runtime: process-group liveness from /proc, group
// signals, supervisor liveness (pid + start time, never a recycled pid), container presence/removal,
// sandbox launcher and init identity.
import { readdirSync, readFileSync } from 'node:fs';
import { execCommand, type Spawner } from '../../src/core/exec.js';
import { checkProcess } from '../../src/core/process-identity.js';
import { buildRemoveCommand, type PodmanGlobal } from '../container/podman-args.js';
import type { FenceRuntime } from './fence-file.js';
import { buildContainerExistsCommand } from './podman-cleanup-args.js';
import { decideSandboxRuntime, type SandboxObservation, type SandboxRuntime } from './sandbox-liveness.js';

/** Whether any live (non-zombie) process still belongs to process group `pgid`. */
export function processGroupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    // Without /proc: kill(0) on the group.
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] = state, fields[2] = pgrp.
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

/** Send a signal to a process group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether the recorded supervisor process (pid + /proc start time) still runs. */
export function supervisorAlive(pid: number, startTime: string | null): boolean {
  return checkProcess(pid, startTime) === 'alive';
}

/** Whether a recorded runtime still runs: `unknown` when podman cannot answer. */
export async function runtimeAlive(runtime: FenceRuntime | null, spawner?: Spawner): Promise<boolean | 'unknown'> {
  if (!runtime) return false;
  if (runtime.kind === 'process') {
    // A pgid is never reused while its group exists: a different process at that pid means the group is gone.
    if (runtime.startTime !== null && checkProcess(runtime.pgid, runtime.startTime) === 'reused') return false;
    return processGroupAlive(runtime.pgid);
  }
  if (runtime.kind === 'sandbox') return decideSandboxRuntime(runtime, observeSandbox(runtime)).alive;
  const global = podmanGlobalOf(runtime);
  try {
    const result = await execCommand(buildContainerExistsCommand(global, runtime.name), {}, spawner);
    return result.exitCode === 0 ? true : result.exitCode === 1 ? false : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** End a runtime for good: SIGKILL to the whole group, to the sandbox's init and launcher group, or `podman rm --force`. */
export async function killRuntime(runtime: FenceRuntime, spawner?: Spawner): Promise<void> {
  if (runtime.kind === 'process') {
    if (runtime.startTime !== null && checkProcess(runtime.pgid, runtime.startTime) === 'reused') return;
    signalGroup(runtime.pgid, 'SIGKILL');
    return;
  }
  if (runtime.kind === 'sandbox') {
    for (const target of decideSandboxRuntime(runtime, observeSandbox(runtime)).kill) {
      try {
        process.kill(target.group ? -target.pid : target.pid, 'SIGKILL');
      } catch {
        // Ended between the look and the signal.
      }
    }
    return;
  }
  await execCommand(buildRemoveCommand(podmanGlobalOf(runtime), runtime.name), {}, spawner).catch(() => undefined);
}

/** Kill runtimes until verification says they are gone; resolves with whether it succeeded in time. */
export async function killAndVerify(runtime: FenceRuntime | null, options: { timeoutMs: number; spawner?: Spawner }): Promise<boolean> {
  if (!runtime) return true;
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const alive = await runtimeAlive(runtime, options.spawner);
    if (alive === false) return true;
    if (Date.now() >= deadline) return false;
    await killRuntime(runtime, options.spawner);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The recorded sandbox processes as /proc shows them now. */
export function observeSandbox(runtime: SandboxRuntime): SandboxObservation {
  const launcher = runtime.launcherStartTime === null ? 'unrecorded' : checkProcess(runtime.launcherPgid, runtime.launcherStartTime);
  return {
    launcher,
    launcherGroupMembers: launcher === 'dead' && processGroupAlive(runtime.launcherPgid),
    init: runtime.initStartTime === null ? 'unrecorded' : checkProcess(runtime.initPid, runtime.initStartTime),
  };
}

function podmanGlobalOf(runtime: Extract<FenceRuntime, { kind: 'container' }>): PodmanGlobal {
  return { podman: runtime.podman, runtime: runtime.ociRuntime };
}
