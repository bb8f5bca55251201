// The body of a runtime supervisor process: write the fence, start the app through the real runner,
// keep the lease renewed by the controller, and when control is lost (or the lease expires, or a stop
// is requested, or the app exits) stop the runtime, verify it is gone, and only then remove the fence.
import { systemClock, type Clock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import { processStartTime } from '../../src/core/process-identity.js';
import type { AppExit, AppRunner, RunningApp } from '../app-runner.js';
import { containerName, ContainerRunner } from '../container/container-runner.js';
import { LogStore } from '../log-store.js';
import { ProcessRunner } from '../process-runner.js';
import { createSandboxRunner } from '../sandbox/sandbox-settings.js';
import { decideSupervision, type StopReason } from './fence-decisions.js';
import { removeFileDurably, writeFence, type FenceFile, type FenceRuntime } from './fence-file.js';
import { killAndVerify } from './runtime-probe.js';
import type { ControlMessage, RunnerConfig, SupervisorMessage } from './supervisor-protocol.js';

type StartMessage = Extract<ControlMessage, { type: 'start' }>;

/** The control connection as the supervisor sees it. */
export interface ControlChannel {
  send(message: SupervisorMessage): Promise<void>;
  connected(): boolean;
  onMessage(listener: (message: ControlMessage) => void): void;
  onDisconnect(listener: () => void): void;
}

/** Build the runner named by the config inside the supervisor; the run id is fixed by the controller. */
export function buildRunner(config: RunnerConfig, runId: string): AppRunner {
  const logs = new LogStore({ dir: config.logsDir });
  const common = { runsDir: config.runsDir, logs, ids: () => runId, ...(config.stopGraceMs === undefined ? {} : { stopGraceMs: config.stopGraceMs }) };
  if (config.kind === 'process') return new ProcessRunner(common);
  if (config.kind === 'sandbox') {
    // The controller asked for a sandbox: when this host cannot make one, every start is refused with
    // SVC_SANDBOX_UNAVAILABLE (reported by code) rather than run unsandboxed.
    const uid = config.uid;
    return createSandboxRunner(
      { enabled: true, network: config.network, limits: config.limits, uidBase: undefined, bwrapPath: config.bwrapPath },
      { ...common, ...(uid === undefined ? {} : { uidFor: () => uid }), ...(config.traversableRoots ? { traversableRoots: config.traversableRoots } : {}) },
    );
  }
  return new ContainerRunner({ ...common, image: config.image, podman: config.podman, ...(config.limits ? { limits: config.limits } : {}) });
}

/** The runtime identity of a started process or sandbox app, for its fence (containers are named up front). */
export function startedRuntime(config: RunnerConfig, app: RunningApp): FenceRuntime | null {
  const record = app.record();
  if (config.kind === 'process' && app.pid !== undefined) return { kind: 'process', pgid: app.pid, startTime: record.processStartTime ?? null };
  if (config.kind === 'sandbox' && record.pid !== undefined && record.sandbox) {
    return {
      kind: 'sandbox',
      launcherPgid: record.pid,
      launcherStartTime: record.processStartTime ?? null,
      initPid: record.sandbox.initPid,
      initStartTime: record.sandbox.initStartTime,
    };
  }
  return null;
}

/** Run one supervised app until it ends; resolves with the process exit code for the supervisor. */
export async function runSupervisor(start: StartMessage, channel: ControlChannel, clock: Clock = systemClock): Promise<number> {
  const { spec, runId, fencePath } = start;
  const runtime: FenceRuntime | null =
    start.runner.kind === 'container'
      ? { kind: 'container', name: containerName(spec.projectId, runId), podman: start.runner.podman.podman, ociRuntime: start.runner.podman.runtime }
      : null;
  const fence: FenceFile = {
    version: 1,
    projectId: spec.projectId,
    runId,
    releaseId: spec.releaseId,
    supervisor: { pid: process.pid, startTime: processStartTime(process.pid) },
    runtime,
    lease: start.lease,
    updatedAt: clock.now(),
  };
  // The fence exists before anything starts: a crash from here on leaves a fence to resolve.
  writeFence(fencePath, fence);
  let app: RunningApp;
  try {
    app = await buildRunner(start.runner, runId).start(spec);
  } catch (error) {
    const verified = await killAndVerify(fence.runtime, { timeoutMs: 10_000 });
    if (verified) await removeFileDurably(fencePath);
    await channel
      .send({ type: 'failed', code: isSvcError(error) ? error.code : 'SVC_APP_START_FAILED', message: (error as Error).message })
      .catch(() => undefined);
    return 1;
  }
  fence.runtime = startedRuntime(start.runner, app) ?? fence.runtime;
  fence.updatedAt = clock.now();
  writeFence(fencePath, fence);

  const state = { connected: channel.connected(), leaseExpiresAt: start.lease.expiresAt, appExited: false, stopRequested: false };
  let stopGraceMs: number | undefined;
  let ended: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (ended = resolve));
  let ending = false;

  const end = async (reason: StopReason): Promise<void> => {
    if (ending) return;
    ending = true;
    clearInterval(timer);
    const exit: AppExit = await app
      .stop(stopGraceMs === undefined ? {} : { graceMs: stopGraceMs })
      .catch(() => ({ code: null, signal: null, at: clock.now() }));
    const verified = await killAndVerify(fence.runtime, { timeoutMs: 15_000 });
    // Only verified cleanup resolves the fence; otherwise the next controller start deals with it.
    if (verified) await removeFileDurably(fencePath);
    if (channel.connected()) await channel.send({ type: 'exited', exit, reason, verified }).catch(() => undefined);
    ended(verified ? 0 : 1);
  };
  const check = (): void => {
    const reason = decideSupervision(state, clock.now());
    if (reason) void end(reason);
  };
  // Declared before any listener can call check(): end() reads it.
  const timer = setInterval(check, start.leaseCheckMs);

  channel.onMessage((message) => {
    if (message.type === 'renew') {
      if (ending || message.expiresAt <= state.leaseExpiresAt) return;
      state.leaseExpiresAt = message.expiresAt;
      fence.lease = { ...fence.lease, expiresAt: message.expiresAt };
      fence.updatedAt = clock.now();
      try {
        writeFence(fencePath, fence);
      } catch {
        // The older lease on disk only makes a restarted controller wait less long; the stop path is unaffected.
      }
    } else if (message.type === 'stop') {
      stopGraceMs = message.graceMs;
      state.stopRequested = true;
      check();
    }
  });
  channel.onDisconnect(() => {
    state.connected = false;
    check();
  });
  app.onExit(() => {
    state.appExited = true;
    check();
  });
  await channel.send({ type: 'started', record: app.record() }).catch(() => undefined);
  check();
  return done;
}
