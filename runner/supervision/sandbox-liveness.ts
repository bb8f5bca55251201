// Pure: whether a sandbox recorded in a fence still runs, and which of its processes to SIGKILL, from
// what /proc says about the recorded launcher and init. Only a pid whose start time still matches the
// recorded one is ever signalled: any other process at that pid is a stranger by now.
import type { ProcessLiveness } from '../../src/core/process-identity.js';
import type { FenceRuntime } from './fence-file.js';

export type SandboxRuntime = Extract<FenceRuntime, { kind: 'sandbox' }>;

/**
 * What /proc says about the recorded processes. `unrecorded`: no start time was recorded, which only
 * happens when the process had already ended as the sandbox's record was written.
 */
export interface SandboxObservation {
  launcher: ProcessLiveness | 'unrecorded';
  /** Whether live members of the launcher's process group remain (looked up when the launcher itself is dead). */
  launcherGroupMembers: boolean;
  init: ProcessLiveness | 'unrecorded';
}

/** One SIGKILL to send: a single process, or a whole process group. */
export interface SignalTarget {
  pid: number;
  group: boolean;
}

/** Alive while the launcher's group or the sandbox's init runs; the kill list names exactly those. */
export function decideSandboxRuntime(runtime: SandboxRuntime, observation: SandboxObservation): { alive: boolean; kill: SignalTarget[] } {
  // A group id is never handed out again while the group exists, so `reused` means the group is gone.
  const launcherGroup = observation.launcher === 'alive' || (observation.launcher === 'dead' && observation.launcherGroupMembers);
  // When init is gone the kernel has already ended every process of its PID namespace.
  const init = observation.init === 'alive';
  const kill: SignalTarget[] = [];
  if (init) kill.push({ pid: runtime.initPid, group: false });
  if (launcherGroup) kill.push({ pid: runtime.launcherPgid, group: true });
  return { alive: launcherGroup || init, kill };
}
