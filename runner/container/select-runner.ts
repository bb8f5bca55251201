// SVC_RUNNER picks the app runner: `process` (default; trusted apps only) or `container` (podman).
import { z } from 'zod';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import type { AppRunner } from '../app-runner.js';
import type { LogStore } from '../log-store.js';
import { ProcessRunner } from '../process-runner.js';
import { createSandboxRunner, readSandboxSettings } from '../sandbox/sandbox-settings.js';
import { DEFAULT_CONTAINER_IMAGE } from './build-node-image.js';
import { ContainerRunner } from './container-runner.js';
import { defaultContainerLimits, type ContainerLimits } from './podman-args.js';

const runnerEnvSchema = z.object({
  SVC_RUNNER: z.enum(['process', 'container']).default('process'),
  SVC_CONTAINER_IMAGE: z.string().regex(/^[a-z0-9][a-z0-9._/:@-]{0,254}$/).default(DEFAULT_CONTAINER_IMAGE),
  SVC_CONTAINER_MEMORY: z.string().regex(/^\d+[kmg]$/).optional(),
  SVC_CONTAINER_PIDS: z.coerce.number().int().min(8).max(100_000).optional(),
  SVC_CONTAINER_CPUS: z.string().regex(/^\d+(\.\d+)?$/).optional(),
  SVC_CONTAINER_USER: z.string().regex(/^[1-9]\d*:\d+$/).optional(),
  SVC_CONTAINER_TMPFS_SIZE: z.string().regex(/^\d+[kmg]$/).optional(),
  SVC_PODMAN: z.string().min(1).optional(),
});

/** Runner settings read from the SVC_* environment (pure; throws SVC_RUNNER_CONFIG). */
export function readRunnerSettings(env: Readonly<Record<string, string | undefined>>): { kind: 'process' | 'container'; image: string; limits: Partial<ContainerLimits>; podman?: string } {
  const parsed = runnerEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_RUNNER_CONFIG', `Invalid ${String(issue?.path[0] ?? 'runner setting')}: ${issue?.message ?? 'invalid'}`);
  }
  const e = parsed.data;
  const limits: Partial<ContainerLimits> = {};
  if (e.SVC_CONTAINER_MEMORY) limits.memory = e.SVC_CONTAINER_MEMORY;
  if (e.SVC_CONTAINER_PIDS) limits.pids = e.SVC_CONTAINER_PIDS;
  if (e.SVC_CONTAINER_CPUS) limits.cpus = e.SVC_CONTAINER_CPUS;
  if (e.SVC_CONTAINER_USER) limits.user = e.SVC_CONTAINER_USER;
  if (e.SVC_CONTAINER_TMPFS_SIZE) limits.tmpfsSize = e.SVC_CONTAINER_TMPFS_SIZE;
  return { kind: e.SVC_RUNNER, image: e.SVC_CONTAINER_IMAGE, limits, ...(e.SVC_PODMAN ? { podman: e.SVC_PODMAN } : {}) };
}

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
  const common = { runsDir: base.runsDir, logs: base.logs, ...(base.clock ? { clock: base.clock } : {}), ...(base.stopGraceMs === undefined ? {} : { stopGraceMs: base.stopGraceMs }) };
  if (settings.kind === 'process') {
    const sandbox = readSandboxSettings(env);
    if (!sandbox.enabled) return new ProcessRunner(common);
    return createSandboxRunner(sandbox, { ...common, ...(base.uidFor ? { uidFor: base.uidFor } : {}), ...(base.traversableRoots ? { traversableRoots: base.traversableRoots } : {}) });
  }
  return new ContainerRunner({ ...common, image: settings.image, limits: { ...defaultContainerLimits, ...settings.limits }, ...(settings.podman ? { podman: { podman: settings.podman } } : {}) });
}
