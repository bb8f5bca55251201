// Pure: the runner a node's supervisors build, from the SVC_RUNNER / SVC_CONTAINER_* / SVC_SANDBOX*
// settings. Apps run in a bubblewrap sandbox, as on the control plane; `process` only with SVC_SANDBOX=off.
import { join } from 'node:path';
import { readRunnerSettings } from './container/select-runner.js';
import { defaultContainerLimits, defaultPodmanGlobal } from './container/podman-args.js';
import { readSandboxSettings } from './sandbox/sandbox-settings.js';
import type { RunnerConfig } from './supervision/supervisor-protocol.js';

export interface NodeRunnerChoice {
  config: RunnerConfig;
  /** First uid handed to a project on this node (SVC_SANDBOX_UID_BASE); used for sandboxes as root only. */
  uidBase: number | undefined;
  /** Something the operator must be told at start-up (apps running unsandboxed). */
  warning: string | null;
}

/** Decide the runner config for a node whose state lives in `dataDir` (throws SVC_RUNNER_CONFIG / SVC_SANDBOX_CONFIG). */
export function nodeRunnerConfig(env: Readonly<Record<string, string | undefined>>, dataDir: string): NodeRunnerChoice {
  const settings = readRunnerSettings(env);
  const common = { runsDir: join(dataDir, 'runs'), logsDir: join(dataDir, 'logs') };
  if (settings.kind === 'container') {
    const limits = { ...defaultContainerLimits, ...settings.limits, ulimits: [...(settings.limits.ulimits ?? defaultContainerLimits.ulimits)] };
    return {
      config: {
        kind: 'container',
        ...common,
        image: settings.image,
        limits,
        podman: { ...defaultPodmanGlobal, ...(settings.podman ? { podman: settings.podman } : {}) },
      },
      uidBase: undefined,
      warning: null,
    };
  }
  const sandbox = readSandboxSettings(env);
  if (!sandbox.enabled) {
    return {
      config: { kind: 'process', ...common },
      uidBase: undefined,
      warning: "SVC_SANDBOX=off: apps on this node run unsandboxed, as the runner's own user; only for apps you trust",
    };
  }
  return {
    config: {
      kind: 'sandbox',
      ...common,
      network: sandbox.network,
      limits: { ...sandbox.limits },
      ...(sandbox.bwrapPath ? { bwrapPath: sandbox.bwrapPath } : {}),
      // Mounts live under the data directory: only folders from there down are made passable for project uids.
      traversableRoots: [dataDir],
    },
    uidBase: sandbox.uidBase,
    warning: null,
  };
}
