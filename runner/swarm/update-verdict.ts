// svc's own verdict on a release's swarm service, from the service's UpdateStatus and its tasks
// (never Docker's word alone: an update Docker calls completed is healthy only once enough tasks of
// the new generation run). Pure; the caller polls until it is not pending or its deadline passes.
import type { ErrorCode } from '../../src/core/error-codes/index.js';
import type { SwarmTask, SwarmTaskState, SwarmUpdateStatus } from './engine-schemas.js';
import { SWARM_LABELS } from './swarm-names.js';

export type SwarmVerdict = { kind: 'pending' } | { kind: 'healthy' } | { kind: 'failed'; code: ErrorCode; reason: string };

export interface SwarmVerdictInput {
  /** Absent when the service was just created and never updated. */
  updateStatus?: SwarmUpdateStatus | undefined;
  /** The service's tasks (any generation). */
  tasks: readonly SwarmTask[];
  /** The generation whose tasks must run. */
  generation: number;
  replicas: number;
}

const IN_PROGRESS: ReadonlySet<SwarmTaskState> = new Set(['new', 'allocated', 'pending', 'assigned', 'accepted', 'preparing', 'ready', 'starting']);

function generationOf(task: SwarmTask): string | undefined {
  return task.Spec.ContainerSpec?.Labels?.[SWARM_LABELS.generation];
}

/** Code and reason from the new generation's failed tasks (a health kill reads as unhealthy). */
function failure(tasks: readonly SwarmTask[], fallback: string): { kind: 'failed'; code: ErrorCode; reason: string } {
  const failed = tasks.filter((t) => t.Status.State === 'failed' || t.Status.State === 'rejected');
  const last = failed.at(-1);
  if (last === undefined) return { kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', reason: fallback };
  const detail = last.Status.Err ?? last.Status.Message ?? last.Status.State;
  if (last.Status.State === 'failed' && /unhealthy/i.test(detail)) return { kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', reason: `${fallback}: ${detail}` };
  return { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: `${fallback}: task ${last.Status.State}: ${detail}` };
}

export function swarmVerdict(input: SwarmVerdictInput): SwarmVerdict {
  const wanted = String(input.generation);
  const fresh = input.tasks.filter((t) => generationOf(t) === wanted);
  const state = input.updateStatus?.State;
  const message = input.updateStatus?.Message;
  const said = message === undefined || message === '' ? '' : ` (${message})`;
  // Docker gave up on the new release: it lost, whether or not the old one is back yet.
  if (state === 'rollback_started') return failure(fresh, `the update is being rolled back${said}`);
  if (state === 'rollback_paused') return failure(fresh, `the update failed and its rollback paused${said}`);
  if (state === 'rollback_completed') return failure(fresh, `the update was rolled back${said}`);
  if (state === 'paused') return failure(fresh, `the update paused${said}`);
  if (state === 'updating') return { kind: 'pending' };
  // completed, or a service that was created and never updated: judge by the tasks themselves.
  const running = fresh.filter((t) => t.Status.State === 'running' && t.DesiredState === 'running').length;
  const stale = input.tasks.some((t) => generationOf(t) !== wanted && t.DesiredState === 'running');
  if (running >= input.replicas && !stale) return { kind: 'healthy' };
  if (fresh.some((t) => t.DesiredState === 'running' && (IN_PROGRESS.has(t.Status.State) || t.Status.State === 'running'))) return { kind: 'pending' };
  if (fresh.some((t) => t.Status.State === 'failed' || t.Status.State === 'rejected')) {
    return failure(fresh, state === 'completed' ? `the update completed but no task of generation ${wanted} runs` : `no task of generation ${wanted} runs`);
  }
  return { kind: 'pending' };
}
