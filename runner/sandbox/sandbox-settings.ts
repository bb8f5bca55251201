// Operator settings of the sandboxed process runner (SVC_SANDBOX*), validated at start-up, and the
// factory that builds the runner only after proving the sandbox works on this host.
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import type { IdGenerator } from '../../src/core/ids.js';
import type { LogStore } from '../log-store.js';
import { defaultSandboxLimits, type SandboxLimits } from './bwrap-args.js';
import { describeSandboxHost, findSandboxTools, probeSandbox, type SandboxTools } from './sandbox-host.js';
import { SandboxRunner } from './sandbox-runner.js';

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

export interface SandboxRunnerBase {
  runsDir: string;
  logs: LogStore;
  clock?: Clock;
  stopGraceMs?: number;
  /** The uid of a project (root only); omitted, apps run as svc's own uid. */
  uidFor?: (projectId: string) => number;
  /** Folders down from which sandbox mounts are made passable (default: the parent of runsDir). */
  traversableRoots?: readonly string[];
  /** Run ids (a supervisor passes its controller's, so the run keeps one id everywhere). */
  ids?: IdGenerator;
  /** Picks a free loopback port for an app (default: ask the kernel). */
  pickPort?: () => Promise<number>;
}

/**
 * Build the sandbox runner. When bubblewrap (or slirp4netns for the isolated network) is missing or
 * cannot create namespaces here, the runner refuses every start with SVC_SANDBOX_UNAVAILABLE (running
 * sandboxes are still re-adopted and stopped): there is no silent fallback to unsandboxed apps.
 */
export function createSandboxRunner(settings: SandboxSettings, base: SandboxRunnerBase): SandboxRunner {
  const root = process.getuid?.() === 0;
  const uidFor = root ? base.uidFor : undefined;
  let tools: SandboxTools | null = null;
  let unavailable: SvcError | null = null;
  try {
    tools = findSandboxTools(settings.network, settings.bwrapPath);
    // As root, prove it for an unprivileged uid, as apps will run (nobody owns nothing svc cares about).
    probeSandbox(tools, { network: settings.network, ...(uidFor ? { uid: 65534 } : {}) });
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    unavailable = error;
  }
  const host = describeSandboxHost({ nodePath: process.execPath, etcDir: join(base.runsDir, '.sandbox-etc'), network: settings.network });
  return new SandboxRunner({
    runsDir: base.runsDir,
    logs: base.logs,
    tools: tools ?? { bwrap: 'bwrap', prlimit: 'prlimit', setsid: 'setsid', slirp4netns: null },
    ...(unavailable ? { unavailable } : {}),
    host,
    network: settings.network,
    limits: settings.limits,
    ...(uidFor ? { uidFor } : {}),
    traversableRoots: base.traversableRoots ?? [dirname(base.runsDir)],
    ...(base.clock ? { clock: base.clock } : {}),
    ...(base.ids ? { ids: base.ids } : {}),
    ...(base.pickPort ? { pickPort: base.pickPort } : {}),
    ...(base.stopGraceMs === undefined ? {} : { stopGraceMs: base.stopGraceMs }),
  });
}
