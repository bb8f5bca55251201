// The factory that builds the sandboxed process runner only after proving the sandbox works on this
// host. Its SVC_SANDBOX* settings are read in runner/runner-settings.ts (re-exported here).
import { dirname, join } from 'node:path';
import type { Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import type { IdGenerator } from '../../src/core/ids.js';
import type { LogStore } from '../log-store.js';
import type { SandboxSettings } from '../runner-settings.js';
import { describeSandboxHost, findSandboxTools, probeSandbox, type SandboxTools } from './sandbox-host.js';
import { SandboxRunner } from './sandbox-runner.js';

export { DEFAULT_SANDBOX_UID_BASE, readSandboxSettings, type SandboxSettings } from '../runner-settings.js';

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
