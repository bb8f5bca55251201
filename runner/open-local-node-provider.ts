// The provider a runner node uses when no bridge is configured, and the one `svc-runner provider`
// serves: the local provider with every app beneath its own supervisor (runner/supervision), fenced by
// a durable per-project store. `recover()` is the start-up step: wait for a previous controller's lease,
// verify its runtimes are gone, then restart every project's active release from durable state.
import { join, resolve } from 'node:path';
import { randomId } from '../src/core/ids.js';
import { readRunnerSettings } from './container/select-runner.js';
import { defaultContainerLimits, defaultPodmanGlobal } from './container/podman-args.js';
import { FenceStore } from './provider/fence-store.js';
import { fencedProvider } from './provider/fenced-provider.js';
import { createLocalProvider, type LocalProvider, type LocalProviderFailpoint, type ResumeOutcome } from './provider/local-provider.js';
import type { DeploymentProvider } from './provider/provider-contract.js';
import { FenceRecovery } from './supervision/recover-fences.js';
import { SupervisedRunner } from './supervision/supervised-runner.js';
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
export function openLocalNodeProvider(dataDirSetting: string, env: Readonly<Record<string, string | undefined>>, onError?: (error: unknown, context: string) => void): LocalNodeProvider {
  const dataDir = resolve(dataDirSetting);
  const settings = readRunnerSettings(env);
  const supervision = readSupervisionSettings(env);
  const common = { runsDir: join(dataDir, 'runs'), logsDir: join(dataDir, 'logs') };
  const config: RunnerConfig =
    settings.kind === 'process'
      ? { kind: 'process', ...common }
      : { kind: 'container', ...common, image: settings.image, limits: { ...defaultContainerLimits, ...settings.limits, ulimits: [...(settings.limits.ulimits ?? defaultContainerLimits.ulimits)] }, podman: { ...defaultPodmanGlobal, ...(settings.podman ? { podman: settings.podman } : {}) } };
  const holder = `${randomId('ctl')}.${process.pid}`;
  const fencesDir = join(dataDir, 'runtime-fences');
  const runner = new SupervisedRunner({ runner: config, fencesDir, holder, leaseMs: supervision.leaseMs, renewMs: supervision.renewMs });
  const recovery = new FenceRecovery({ fencesDir, holder });
  const local = createLocalProvider({
    runner,
    rootDir: join(dataDir, 'projects'),
    gate: (projectId) => recovery.assertResolved(projectId),
    failpoint: (name: LocalProviderFailpoint, releaseId: string) => crashAt(env, name, releaseId),
    ...(onError ? { onError } : {}),
  });
  const fences = new FenceStore(join(dataDir, 'fences.db'));
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
 * Crash tests: `SVC_PROVIDER_FAILPOINT=<name>[@<releaseId>]` kills the provider (SIGKILL) at that point of a
 * deploy; `stop:<name>[@<releaseId>]` freezes it instead (SIGSTOP: a hung controller whose lease runs out).
 */
function crashAt(env: Readonly<Record<string, string | undefined>>, name: LocalProviderFailpoint, releaseId: string): void {
  const armed = (env.SVC_PROVIDER_FAILPOINT ?? '').split(',').map((s) => s.trim());
  const hit = (point: string): boolean => armed.includes(point) || armed.includes(`${point}@${releaseId}`);
  if (hit(name)) process.kill(process.pid, 'SIGKILL');
  if (hit(`stop:${name}`)) process.kill(process.pid, 'SIGSTOP');
}
