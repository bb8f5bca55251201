// SVC_RUNNER picks the app runner: `process` (default; trusted apps only) or `container` (podman).
import type { Clock } from '../../src/core/clock.js';
import type { AppRunner } from '../app-runner.js';
import type { LogStore } from '../log-store.js';
import { ProcessRunner } from '../process-runner.js';
import { createSandboxRunner } from '../sandbox/sandbox-settings.js';
import { readRunnerSettings, readSandboxSettings } from '../runner-settings.js';
import { ContainerRunner } from './container-runner.js';
import { defaultContainerLimits } from './podman-args.js';

export { readRunnerSettings } from '../runner-settings.js';

export interface SelectRunnerBase {
  runsDir: string;
  logs: LogStore;
  clock?: Clock;
  stopGraceMs?: number;
  /** The uid a project's apps run under in the sandbox when svc runs as root. */
  uidFor?: (projectId: string) => number;
  /** Folders down from which sandbox mounts are made passable for those uids. */
  traversableRoots?: readonly string[];
}

/**
 * Build the runner SVC_RUNNER names: `process` (the default) runs every app in a bubblewrap sandbox,
 * unsandboxed only with SVC_SANDBOX=off; `container` runs apps under podman.
 */
export function selectAppRunner(env: Readonly<Record<string, string | undefined>>, base: SelectRunnerBase): AppRunner {
  const settings = readRunnerSettings(env);
  const common = {
    runsDir: base.runsDir,
    logs: base.logs,
    ...(base.clock ? { clock: base.clock } : {}),
    ...(base.stopGraceMs === undefined ? {} : { stopGraceMs: base.stopGraceMs }),
  };
  if (settings.kind === 'process') {
    const sandbox = readSandboxSettings(env);
    if (!sandbox.enabled) return new ProcessRunner(common);
    return createSandboxRunner(sandbox, {
      ...common,
      ...(base.uidFor ? { uidFor: base.uidFor } : {}),
      ...(base.traversableRoots ? { traversableRoots: base.traversableRoots } : {}),
    });
  }
  return new ContainerRunner({
    ...common,
    image: settings.image,
    limits: { ...defaultContainerLimits, ...settings.limits },
    ...(settings.podman ? { podman: { podman: settings.podman } } : {}),
  });
}
