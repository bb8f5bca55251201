// What the swarm driver reads from a service's tasks, as pure functions: where a task of one
// generation listens, whether a candidate generation is running, still coming up or lost, and how a
// task that ended ended. Measured on dockerd 20.10: a task with a health check turns `running` only
// once Docker's probe passed, and only then carries its host-mode port; a task Docker killed as
// unhealthy, or stopped for a rollback, usually ends `complete` (the entrypoint exits 0 on SIGTERM).
import type { ErrorCode } from '../../src/core/error-codes/index.js';
import type { SwarmTask, SwarmTaskState, SwarmUpdateStatus } from './engine-schemas.js';
import { SWARM_LABELS } from './swarm-names.js';
import { swarmVerdict } from './update-verdict.js';

/** The generation a service spec (or its previous spec) carries, or null. */
export function specGeneration(spec: { Labels?: Record<string, string> | undefined } | undefined): number | null {
  const value = Number(spec?.Labels?.[SWARM_LABELS.generation]);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** The generation label of a task, or null. */
export function taskGeneration(task: SwarmTask): number | null {
  const value = Number(task.Spec.ContainerSpec?.Labels?.[SWARM_LABELS.generation]);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** The host port the engine published for a task (host mode), or null before it runs. */
export function publishedPort(task: SwarmTask): number | null {
  const port = task.Status.PortStatus?.Ports?.find((p) => (p.PublishMode ?? 'host') === 'host' && typeof p.PublishedPort === 'number' && p.PublishedPort > 0);
  return port?.PublishedPort ?? null;
}

const ENDED: ReadonlySet<SwarmTaskState> = new Set(['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove']);

/** Whether a task is over (it will never run again; swarm starts a new task instead). */
export function taskEnded(task: SwarmTask): boolean {
  return ENDED.has(task.Status.State);
}

/** A task that runs, is meant to run, and listens on a published port. */
export function isServing(task: SwarmTask): boolean {
  return task.Status.State === 'running' && task.DesiredState === 'running' && publishedPort(task) !== null;
}

function byTime(a: SwarmTask, b: SwarmTask): number {
  return Date.parse(a.Status.Timestamp ?? '') - Date.parse(b.Status.Timestamp ?? '') || a.ID.localeCompare(b.ID);
}

/** The serving tasks of one generation, oldest first. */
export function servingTasks(tasks: readonly SwarmTask[], generation: number): SwarmTask[] {
  return tasks.filter((t) => taskGeneration(t) === generation && isServing(t)).sort(byTime);
}

/** How a task ended, as an exit: its container's status (null when it never ran). */
export function taskExit(task: SwarmTask, at: number): { code: number | null; signal: string | null; at: number } {
  const code = task.Status.ContainerStatus?.ExitCode;
  return { code: typeof code === 'number' ? code : null, signal: null, at };
}

/** Why a task ended, in the engine's words. */
export function taskReason(task: SwarmTask): string {
  const code = task.Status.ContainerStatus?.ExitCode;
  const said = task.Status.Err ?? task.Status.Message ?? '';
  return `task ${task.Status.State}${typeof code === 'number' && code !== 0 ? ` (exit ${code})` : ''}${said ? `: ${said}` : ''}`;
}

/** Whether the engine rejected the task because its node lacks the image (images are never pulled). */
export function imageMissing(task: SwarmTask): boolean {
  return task.Status.State === 'rejected' && /no such image/i.test(task.Status.Err ?? '');
}

export type CandidateState =
  | { kind: 'pending' }
  | { kind: 'running'; task: SwarmTask; port: number }
  | {
      kind: 'failed';
      code: Extract<ErrorCode, 'SVC_APP_START_FAILED' | 'SVC_HEALTH_CHECK_FAILED' | 'SVC_SWARM_IMAGE_MISSING'>;
      reason: string;
      exitCode: number | null;
    };

export interface CandidateInput {
  tasks: readonly SwarmTask[];
  updateStatus?: SwarmUpdateStatus | undefined;
  /** The generation the service's spec carries now (Docker swaps it back when it rolls an update back). */
  specGeneration: number | null;
  generation: number;
}

/**
 * Whether the service's update status is about this generation failing. UpdateStatus outlives its
 * update (a rollback stays `rollback_completed` until the next update), so a rollback counts only
 * when the spec no longer carries the generation, a pause only when it still does.
 */
export function updateFailed(updateStatus: SwarmUpdateStatus | undefined, specGeneration: number | null, generation: number): boolean {
  const state = updateStatus?.State;
  if (state === 'rollback_started' || state === 'rollback_paused' || state === 'rollback_completed') return specGeneration !== generation;
  return state === 'paused' && specGeneration === generation;
}

/** An ended task of the candidate: the app exited on its own (start failed) or was stopped unhealthy. */
function endedFailure(task: SwarmTask): Extract<CandidateState, { kind: 'failed' }> {
  const exitCode = task.Status.ContainerStatus?.ExitCode ?? null;
  const detail = `${task.Status.Err ?? ''} ${task.Status.Message ?? ''}`;
  if (imageMissing(task))
    return {
      kind: 'failed',
      code: 'SVC_SWARM_IMAGE_MISSING',
      reason: `node ${task.NodeID ?? '?'} does not have the base image (${taskReason(task)})`,
      exitCode,
    };
  const crashed = (task.Status.State === 'failed' && exitCode !== null && exitCode !== 0 && !/unhealthy/i.test(detail)) || task.Status.State === 'rejected';
  return { kind: 'failed', code: crashed ? 'SVC_APP_START_FAILED' : 'SVC_HEALTH_CHECK_FAILED', reason: taskReason(task), exitCode };
}

/**
 * Where a starting generation stands: running (a task of it serves on a published port), failed
 * (Docker rolled back or paused the update, or a task of it ended before any served), or pending.
 * A task that ends is a failure even when swarm would start another: a candidate gets one chance.
 */
export function candidateState(input: CandidateInput): CandidateState {
  const fresh = input.tasks.filter((t) => taskGeneration(t) === input.generation);
  const serving = servingTasks(fresh, input.generation)[0];
  const state = input.updateStatus?.State;
  if (state !== undefined && updateFailed(input.updateStatus, input.specGeneration, input.generation)) {
    const verdict = swarmVerdict({ updateStatus: input.updateStatus, tasks: fresh, generation: input.generation, replicas: 1 });
    const ended = fresh.filter(taskEnded).sort(byTime).at(-1);
    if (ended) return { ...endedFailure(ended), reason: `${verdict.kind === 'failed' ? verdict.reason : state}; ${taskReason(ended)}` };
    return {
      kind: 'failed',
      code: verdict.kind === 'failed' && verdict.code === 'SVC_APP_START_FAILED' ? 'SVC_APP_START_FAILED' : 'SVC_HEALTH_CHECK_FAILED',
      reason: verdict.kind === 'failed' ? verdict.reason : state,
      exitCode: null,
    };
  }
  if (serving) return { kind: 'running', task: serving, port: publishedPort(serving)! };
  const ended = fresh.filter(taskEnded).sort(byTime)[0];
  if (ended) return endedFailure(ended);
  return { kind: 'pending' };
}

/** Whether a generation has settled: enough of its tasks serve and no task of another generation still runs. */
export function generationSettled(tasks: readonly SwarmTask[], generation: number, replicas: number): boolean {
  const others = tasks.some((t) => taskGeneration(t) !== generation && !taskEnded(t));
  return servingTasks(tasks, generation).length >= replicas && !others;
}

/** Whether no task of the service runs any more (scaled to 0 or removed). */
export function allStopped(tasks: readonly SwarmTask[]): boolean {
  return tasks.every(taskEnded);
}
