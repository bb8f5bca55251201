// The provider a runner node uses when no bridge is configured, and the one `svc-runner provider`
// serves: the local provider with every app beneath its own supervisor (runner/supervision), in a
// sandbox unless SVC_SANDBOX=off (node-runner-config.ts), fenced by a durable per-project store.
// `recover()` is the start-up step: wait for a previous controller's lease, verify its runtimes are
// gone, then restart every project's active release from durable state.
import { join, resolve } from 'node:path';
import { isSvcError } from '../src/core/errors.js';
import { randomId } from '../src/core/ids.js';
import { nodeRunnerConfig } from './node-runner-config.js';
import { FenceStore } from './provider/fence-store.js';
import { fencedProvider } from './provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider, type LocalProviderFailpoint, type ResumeOutcome } from './provider/local-provider.js';
import type { DeploymentProvider } from './provider/provider-contract.js';
import { FenceRecovery } from './supervision/recover-fences.js';
import { SupervisedRunner } from './supervision/supervised-runner.js';
import { findSandboxTools, probeSandbox } from './sandbox/sandbox-host.js';
import { DEFAULT_SANDBOX_UID_BASE } from './sandbox/sandbox-settings.js';
import { readSupervisionSettings } from './supervision/supervision-settings.js';
import type { RunnerConfig } from './supervision/supervisor-protocol.js';

/** A fenced local provider plus its parts, with one close for shutdown (drain). */
export interface LocalNodeProvider {
  provider: DeploymentProvider;
  local: LocalProvider;
  fences: FenceStore;
  runner: SupervisedRunner;
  /** Start-up: resolve earlier runtime fences (waiting for their lease, at most 30 s), then resume active releases. */
  recover(): Promise<{ unresolved: string[]; resumed: ResumeOutcome[] }>;
  /** Stop every app, then close the fence store. */
  close(): Promise<void>;
}

/** Open the fenced local provider under `dataDir` (releases, project data, logs, fence database, runtime fences). */
export function openLocalNodeProvider(
  dataDirSetting: string,
  env: Readonly<Record<string, string | undefined>>,
  onError?: (error: unknown, context: string) => void,
): LocalNodeProvider {
  const dataDir = resolve(dataDirSetting);
  const { config, uidBase, warning } = nodeRunnerConfig(env, dataDir);
  const supervision = readSupervisionSettings(env);
  if (warning) onError?.(new Error(warning), 'warning');
  if (config.kind === 'sandbox') reportUnusableSandbox(config, onError);
  const holder = `${randomId('ctl')}.${process.pid}`;
  const fencesDir = join(dataDir, 'runtime-fences');
  // The fence database also holds the node's project uids, so it opens before anything can start.
  const fences = new FenceStore(join(dataDir, 'fences.db'));
  // Only root can run apps as other users; otherwise every sandbox runs as the runner's own uid.
  const uidFor =
    config.kind === 'sandbox' && process.getuid?.() === 0
      ? (projectId: string) => fences.projectUid(projectId, uidBase ?? DEFAULT_SANDBOX_UID_BASE)
      : undefined;
  const runner = new SupervisedRunner({
    runner: config,
    fencesDir,
    holder,
    leaseMs: supervision.leaseMs,
    renewMs: supervision.renewMs,
    ...(uidFor ? { uidFor } : {}),
  });
  const recovery = new FenceRecovery({ fencesDir, holder });
  const local = createLocalProvider({
    runner,
    rootDir: join(dataDir, 'projects'),
    gate: (projectId) => recovery.assertResolved(projectId),
    failpoint: (name: LocalProviderFailpoint, releaseId: string) => crashAt(env, name, releaseId),
    ...(onError ? { onError } : {}),
  });
  return {
    provider: fencedProvider(local, fences),
    local,
    fences,
    runner,
    async recover() {
      const unresolved = await recovery.recoverAll(supervision.maxLeaseWaitMs);
      const resumed = await local.resume();
      return { unresolved, resumed };
    },
    async close() {
      await local.close();
      runner.close();
      fences.close();
    },
  };
}

/**
 * Tell the operator at start-up, not only at the first deploy, when this host cannot create sandboxes:
 * every app start is then refused with SVC_SANDBOX_UNAVAILABLE (there is no unsandboxed fallback).
 */
function reportUnusableSandbox(config: Extract<RunnerConfig, { kind: 'sandbox' }>, onError?: (error: unknown, context: string) => void): void {
  try {
    // As root, prove it for an unprivileged uid (nobody), as apps will run.
    probeSandbox(findSandboxTools(config.network, config.bwrapPath), { network: config.network, ...(process.getuid?.() === 0 ? { uid: 65534 } : {}) });
  } catch (error) {
    if (!isSvcError(error)) throw error;
    onError?.(new Error(`${error.code}: ${error.message} Every app start on this node is refused until this is fixed.`, { cause: error }), 'sandbox');
  }
}

/**
 * Crash tests: `SVC_PROVIDER_FAILPOINT=<name>[@<releaseId>]` kills the provider (SIGKILL) at that point of a
 * deploy; `stop:<name>[@<releaseId>]` freezes it instead (SIGSTOP: a hung controller whose lease runs out).
 */
function crashAt(env: Readonly<Record<string, string | undefined>>, name: LocalProviderFailpoint, releaseId: string): void {
  const armed = (env.SVC_PROVIDER_FAILPOINT ?? '').split(',').map((s) => s.trim());
  const hit = (point: string): boolean => armed.includes(point) || armed.includes(`${point}@${releaseId}`);
  if (hit(name)) process.kill(process.pid, 'SIGKILL');
  if (hit(`stop:${name}`)) process.kill(process.pid, 'SIGSTOP');
}
