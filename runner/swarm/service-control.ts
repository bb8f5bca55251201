// The waits and service changes the swarm driver makes besides launching a release: until a
// candidate generation runs or fails, until a generation settled (old tasks gone), scale to N, roll a
// candidate's update back, remove a service. Every wait polls the engine and is bounded.
import { SvcError } from '../../src/core/errors.js';
import type { EngineClient, SwarmServiceInfo } from './engine-client.js';
import type { SwarmTask } from './engine-schemas.js';
import type { EngineServiceSpec } from './engine-spec.js';
import type { SwarmRuntime } from './swarm-runtime.js';
import {
  allStopped,
  candidateState,
  generationSettled,
  specGeneration,
  taskEnded,
  taskGeneration,
  updateFailed,
  type CandidateState,
} from './task-observation.js';

const POLL_MS = 250;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface ServiceView {
  service: SwarmServiceInfo | null;
  tasks: SwarmTask[];
}

/** A service and its tasks (none when it does not exist). */
export async function viewService(engine: EngineClient, name: string): Promise<ServiceView> {
  const service = await engine.inspectService(name);
  return { service, tasks: service ? await engine.listTasks({ service: service.id }) : [] };
}

export { specGeneration } from './task-observation.js';

/** Poll `probe` until it answers a value; null after `timeoutMs`. */
async function pollFor<T>(timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return null;
    await sleep(POLL_MS);
  }
}

/** Until a task of `generation` serves, or the candidate failed; a candidate still pending at the deadline failed its health gate. */
export async function awaitCandidate(engine: EngineClient, name: string, generation: number, timeoutMs: number): Promise<CandidateState> {
  const state = await pollFor(timeoutMs, async () => {
    const view = await viewService(engine, name);
    const now = candidateState({ tasks: view.tasks, updateStatus: view.service?.updateStatus, specGeneration: specGeneration(view.service?.spec), generation });
    return now.kind === 'pending' ? undefined : now;
  });
  return (
    state ?? {
      kind: 'failed',
      code: 'SVC_HEALTH_CHECK_FAILED',
      reason: `no task of generation ${generation} passed Docker's health check within ${timeoutMs} ms`,
      exitCode: null,
    }
  );
}

/** The candidate's state now (no waiting), for health checks that watch Docker's verdict. */
export async function candidateNow(engine: EngineClient, name: string, generation: number): Promise<CandidateState> {
  const view = await viewService(engine, name);
  if (!view.service) return { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: `service ${name} is gone`, exitCode: null };
  return candidateState({ tasks: view.tasks, updateStatus: view.service.updateStatus, specGeneration: specGeneration(view.service.spec), generation });
}

/**
 * Until `generation` settled: its update is no longer in progress, enough of its tasks serve, and
 * every task of an older generation ended (the lame-duck window included). Throws when Docker rolled
 * the update back meanwhile; false at the deadline.
 */
export async function awaitSettled(engine: EngineClient, name: string, generation: number, replicas: number, timeoutMs: number): Promise<boolean> {
  const settled = await pollFor(timeoutMs, async () => {
    const view = await viewService(engine, name);
    const state = view.service?.updateStatus?.State;
    if (updateFailed(view.service?.updateStatus, specGeneration(view.service?.spec), generation)) {
      throw new SvcError(
        'SVC_HEALTH_CHECK_FAILED',
        `The update of ${name} to generation ${generation} failed after its task passed the health check (${state}${view.service?.updateStatus?.Message ? `: ${view.service.updateStatus.Message}` : ''})`,
      );
    }
    return state !== 'updating' && generationSettled(view.tasks, generation, replicas) ? true : undefined;
  });
  return settled ?? false;
}

/** Until no task of `generation` runs any more. */
export async function awaitGenerationGone(engine: EngineClient, name: string, generation: number, timeoutMs: number): Promise<boolean> {
  const gone = await pollFor(timeoutMs, async () => {
    const view = await viewService(engine, name);
    return view.tasks.filter((t) => taskGeneration(t) === generation).every(taskEnded) ? true : undefined;
  });
  return gone ?? false;
}

/**
 * Set a service's replica count (its tasks are unchanged otherwise); with 0, wait until its tasks
 * stopped. `endLameDuck` (nothing is routed to the tasks any more): each task being stopped on the
 * node this engine is gets a second SIGTERM, which ends the entrypoint's lame-duck window at once
 * (Docker's stop sends the first; the order does not matter). Tasks on other nodes keep their window:
 * the manager's API cannot signal their containers.
 */
export async function scaleService(
  engine: EngineClient,
  name: string,
  replicas: number,
  timeoutMs: number,
  options: { endLameDuck?: boolean } = {},
): Promise<boolean> {
  const service = await engine.inspectService(name);
  if (!service) return true;
  const local = options.endLameDuck && replicas === 0 ? await engine.localNodeId().catch(() => null) : null;
  const spec = { ...(service.spec as unknown as EngineServiceSpec), Mode: { Replicated: { Replicas: replicas } } };
  await engine.updateService(service.id, service.version, spec);
  if (replicas > 0) return true;
  const signalled = new Set<string>();
  const stopped = await pollFor(timeoutMs, async () => {
    const tasks = await engine.listTasks({ service: service.id });
    for (const container of lameDucks(tasks, local)) {
      if (signalled.has(container)) continue;
      signalled.add(container);
      await engine.signalContainer(container, 'SIGTERM').catch(() => undefined);
    }
    return allStopped(tasks) ? true : undefined;
  });
  return stopped ?? false;
}

/** Containers of tasks on `node` that Docker is stopping (wanted shut down, or removed by a scale-down; not ended yet). */
export function lameDucks(tasks: readonly SwarmTask[], node: string | null): string[] {
  if (node === null) return [];
  return tasks.flatMap((t) => {
    const container = t.Status.ContainerStatus?.ContainerID;
    const stopping = t.DesiredState === 'shutdown' || t.DesiredState === 'remove';
    return container && t.NodeID === node && stopping && !taskEnded(t) ? [container] : [];
  });
}

/**
 * Undo a candidate's update: if the service still carries `generation` and Docker has not rolled it
 * back already, roll it back to the previous spec (or remove a service that has none: the first
 * deploy failed); then wait until no task of the candidate runs.
 */
export async function rollBackGeneration(engine: EngineClient, name: string, generation: number, timeoutMs: number): Promise<void> {
  const service = await engine.inspectService(name);
  if (!service) return;
  if (specGeneration(service.spec) === generation) {
    if (specGeneration(service.previousSpec) === null) return removeService(engine, name, timeoutMs);
    await engine.updateService(service.id, service.version, service.spec as unknown as EngineServiceSpec, { rollback: true });
  }
  await awaitGenerationGone(engine, name, generation, timeoutMs);
}

/** Remove a service and wait until the engine no longer lists it or its tasks. */
export async function removeService(engine: EngineClient, name: string, timeoutMs: number): Promise<void> {
  const service = await engine.inspectService(name);
  if (!service) return;
  await engine.removeService(service.id);
  // The engine forgets a removed service's tasks with it (listing them then answers 404).
  await pollFor(timeoutMs, async () => ((await engine.inspectService(name)) === null ? true : undefined));
}

/** How long a candidate may take to serve: start-up (schedule, fetch, extract) plus its health gate as Docker runs it. */
export function candidateTimeoutMs(rt: Pick<SwarmRuntime, 'settings'>, healthTimeoutMs: number, healthRetries: number, healthIntervalMs: number): number {
  return rt.settings.startTimeoutMs + healthTimeoutMs + (healthRetries + 1) * healthIntervalMs;
}
