// The SVC_* settings that select and shape the local app runner, read as pure functions of the
// environment (no I/O): selectAppRunner builds from them, describeIsolation reports from them.
import { z } from 'zod';
import { SvcError } from '../src/core/errors.js';
import { DEFAULT_CONTAINER_IMAGE, type ContainerLimits } from './container/podman-args.js';
import { defaultSandboxLimits, type SandboxLimits } from './sandbox/bwrap-args.js';

const runnerEnvSchema = z.object({
  SVC_RUNNER: z.enum(['process', 'container']).default('process'),
  SVC_CONTAINER_IMAGE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._/:@-]{0,254}$/)
    .default(DEFAULT_CONTAINER_IMAGE),
  SVC_CONTAINER_MEMORY: z
    .string()
    .regex(/^\d+[kmg]$/)
    .optional(),
  SVC_CONTAINER_PIDS: z.coerce.number().int().min(8).max(100_000).optional(),
  SVC_CONTAINER_CPUS: z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .optional(),
  SVC_CONTAINER_USER: z
    .string()
    .regex(/^[1-9]\d*:\d+$/)
    .optional(),
  SVC_CONTAINER_TMPFS_SIZE: z
    .string()
    .regex(/^\d+[kmg]$/)
    .optional(),
  SVC_PODMAN: z.string().min(1).optional(),
});

/** Runner settings read from the SVC_* environment (pure; throws SVC_RUNNER_CONFIG). */
export function readRunnerSettings(env: Readonly<Record<string, string | undefined>>): {
  kind: 'process' | 'container';
  image: string;
  limits: Partial<ContainerLimits>;
  podman?: string;
} {
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

const size = z
  .string()
  .regex(/^\d+[kmg]?$/i, 'a size such as 512m')
  .transform((v) => Number.parseInt(v, 10) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[v.slice(-1).toLowerCase()] ?? 1));

const sandboxEnvSchema = z.object({
  SVC_SANDBOX: z.enum(['on', 'off']).default('on'),
  SVC_SANDBOX_NETWORK: z.enum(['isolated', 'shared']).default('isolated'),
  SVC_SANDBOX_MEMORY: size.optional(),
  SVC_SANDBOX_PROCESSES: z.coerce.number().int().min(8).max(100_000).optional(),
  SVC_SANDBOX_OPEN_FILES: z.coerce.number().int().min(64).max(1_048_576).optional(),
  SVC_SANDBOX_TMP_SIZE: size.optional(),
  SVC_SANDBOX_UID_BASE: z.coerce.number().int().min(1000).max(2_000_000_000).optional(),
  SVC_SANDBOX_BWRAP: z.string().startsWith('/', 'an absolute path').optional(),
});

/** First uid handed to a project when none is configured (above the usual system and user ranges). */
export const DEFAULT_SANDBOX_UID_BASE = 200_000;

export interface SandboxSettings {
  /** `off` runs apps unsandboxed: only for apps the operator trusts; logged and shown everywhere. */
  enabled: boolean;
  network: 'isolated' | 'shared';
  limits: SandboxLimits;
  uidBase: number | undefined;
  /** bubblewrap to use instead of the one on PATH. */
  bwrapPath: string | undefined;
}

/** Parse the SVC_SANDBOX* variables (pure; throws SVC_SANDBOX_CONFIG). */
export function readSandboxSettings(env: Readonly<Record<string, string | undefined>>): SandboxSettings {
  const parsed = sandboxEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_SANDBOX_CONFIG', `Invalid ${String(issue?.path[0] ?? 'sandbox setting')}: ${issue?.message ?? 'invalid'}`);
  }
  const e = parsed.data;
  return {
    enabled: e.SVC_SANDBOX === 'on',
    network: e.SVC_SANDBOX_NETWORK,
    limits: {
      memoryBytes: e.SVC_SANDBOX_MEMORY ?? defaultSandboxLimits.memoryBytes,
      processes: e.SVC_SANDBOX_PROCESSES ?? defaultSandboxLimits.processes,
      openFiles: e.SVC_SANDBOX_OPEN_FILES ?? defaultSandboxLimits.openFiles,
      tmpBytes: e.SVC_SANDBOX_TMP_SIZE ?? defaultSandboxLimits.tmpBytes,
    },
    uidBase: e.SVC_SANDBOX_UID_BASE,
    bwrapPath: e.SVC_SANDBOX_BWRAP,
  };
}

// Which release driver runs apps (SVC_DRIVER) and the swarm driver's settings: pure, shared by the
// composition root and describeIsolation.
export { readDriverChoice, readSwarmSettings } from './swarm/swarm-settings.js';
