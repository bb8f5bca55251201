// What the swarm driver reads from tasks, pure: task shapes as dockerd 20.10 reports them (a task with
// a health check turns `running` only once healthy and only then has its port; an unhealthy or
// rolled-back task usually ends `complete`; a killed one `failed` with its exit code).
import { describe, expect, it } from 'vitest';
import { swarmTaskSchema, type SwarmTask, type SwarmTaskState, type SwarmUpdateStatus } from '../../../runner/swarm/engine-schemas.js';
import { allStopped, candidateState, generationSettled, publishedPort, servingTasks, taskExit, updateFailed } from '../../../runner/swarm/task-observation.js';
import { nextStreak, reconcileServed, STABLE_UPTIME_MS } from '../../../runner/swarm/task-watch.js';

let next = 0;
function task(
  generation: number,
  state: SwarmTaskState,
  options: { desired?: SwarmTaskState; port?: number; exit?: number; err?: string; message?: string; at?: number; id?: string } = {},
): SwarmTask {
  next += 1;
  return swarmTaskSchema.parse({
    ID: options.id ?? `t${next}`,
    ServiceID: 's1',
    NodeID: 'n1',
    DesiredState: options.desired ?? 'running',
    Spec: { ContainerSpec: { Labels: { 'svc.generation': String(generation) } } },
    Status: {
      State: state,
      Timestamp: new Date(1_700_000_000_000 + (options.at ?? next) * 1000).toISOString(),
      ...(options.err === undefined ? {} : { Err: options.err }),
      ...(options.message === undefined ? {} : { Message: options.message }),
      ...(options.exit === undefined ? {} : { ContainerStatus: { ContainerID: 'c', ExitCode: options.exit } }),
      ...(options.port === undefined
        ? {}
        : { PortStatus: { Ports: [{ Protocol: 'tcp', TargetPort: 3000, PublishedPort: options.port, PublishMode: 'host' }] } }),
    },
  });
}
const status = (State: SwarmUpdateStatus['State']): SwarmUpdateStatus => ({ State });

describe('candidateState', () => {
  it('is running once a task of the generation serves on a published port', () => {
    const state = candidateState({
      tasks: [task(1, 'running', { port: 32768 }), task(2, 'running', { port: 32769 })],
      updateStatus: status('updating'),
      specGeneration: 2,
      generation: 2,
    });
    expect(state).toMatchObject({ kind: 'running', port: 32769 });
  });

  it('is pending while the task starts (Docker has not seen it healthy: no port yet)', () => {
    expect(
      candidateState({
        tasks: [task(1, 'running', { port: 32768 }), task(2, 'starting', { exit: 0 })],
        updateStatus: status('updating'),
        specGeneration: 2,
        generation: 2,
      }),
    ).toEqual({ kind: 'pending' });
    expect(candidateState({ tasks: [task(2, 'running')], specGeneration: 2, generation: 2 })).toEqual({ kind: 'pending' });
  });

  it('fails as unhealthy when Docker rolled the update back (the spec no longer carries the generation)', () => {
    const state = candidateState({
      tasks: [task(1, 'running', { port: 32768 }), task(2, 'complete', { desired: 'shutdown', exit: 0, message: 'finished' })],
      updateStatus: status('rollback_started'),
      specGeneration: 1,
      generation: 2,
    });
    expect(state).toMatchObject({ kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', exitCode: 0 });
    expect(state.kind === 'failed' && state.reason).toMatch(/rolled back[\s\S]*task complete: finished/);
  });

  it('fails on the first ended task even when swarm would start another (a scaled-up service has no rollback)', () => {
    const crashed = candidateState({
      tasks: [task(5, 'failed', { desired: 'shutdown', exit: 1, err: 'task: non-zero exit (1)' }), task(5, 'pending', { desired: 'ready' })],
      specGeneration: 5,
      generation: 5,
    });
    expect(crashed).toEqual({ kind: 'failed', code: 'SVC_APP_START_FAILED', reason: 'task failed (exit 1): task: non-zero exit (1)', exitCode: 1 });
    const unhealthy = candidateState({ tasks: [task(5, 'complete', { desired: 'shutdown', exit: 0, message: 'finished' })], specGeneration: 5, generation: 5 });
    expect(unhealthy).toMatchObject({ kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED' });
    const rejected = candidateState({ tasks: [task(5, 'rejected', { desired: 'shutdown', err: 'secret not found' })], specGeneration: 5, generation: 5 });
    expect(rejected).toMatchObject({ kind: 'failed', code: 'SVC_APP_START_FAILED', reason: 'task rejected: secret not found' });
  });

  it('fails with SVC_SWARM_IMAGE_MISSING when the node lacks the image (rejected while preparing, as dockerd 20.10 says it)', () => {
    const err = `No such image: sha256:${'5'.repeat(64)}`;
    const missing = candidateState({ tasks: [task(6, 'rejected', { desired: 'ready', err, message: 'preparing' })], specGeneration: 6, generation: 6 });
    expect(missing).toMatchObject({ kind: 'failed', code: 'SVC_SWARM_IMAGE_MISSING', reason: `node n1 does not have the base image (task rejected: ${err})` });
    // Also once Docker rolled the update back because of it.
    const rolledBack = candidateState({
      tasks: [task(5, 'running', { port: 32768 }), task(6, 'rejected', { desired: 'shutdown', err, message: 'preparing' })],
      updateStatus: status('rollback_completed'),
      specGeneration: 5,
      generation: 6,
    });
    expect(rolledBack).toMatchObject({ kind: 'failed', code: 'SVC_SWARM_IMAGE_MISSING' });
  });

  it('ignores a rollback left over from an earlier update of another generation', () => {
    // UpdateStatus keeps `rollback_completed` until the next update: it is about the failed candidate, not this one.
    const state = candidateState({
      tasks: [task(3, 'running', { port: 32770 })],
      updateStatus: status('rollback_completed'),
      specGeneration: 3,
      generation: 3,
    });
    expect(state).toMatchObject({ kind: 'running', port: 32770 });
  });
});

describe('updateFailed', () => {
  it('counts a rollback against the generation it moved away from, a pause against the one it stopped at', () => {
    expect(updateFailed(status('rollback_completed'), 1, 2)).toBe(true);
    expect(updateFailed(status('rollback_completed'), 2, 2)).toBe(false);
    expect(updateFailed(status('paused'), 2, 2)).toBe(true);
    expect(updateFailed(status('paused'), 1, 2)).toBe(false);
    expect(updateFailed(status('updating'), 2, 2)).toBe(false);
    expect(updateFailed(status('completed'), 2, 2)).toBe(false);
    expect(updateFailed(undefined, 2, 2)).toBe(false);
  });
});

describe('settling and stopping', () => {
  it('a generation has settled once enough of its tasks serve and no older task is still stopping', () => {
    const lameDuck = task(1, 'running', { desired: 'shutdown' });
    expect(generationSettled([lameDuck, task(2, 'running', { port: 32769 })], 2, 1)).toBe(false);
    expect(generationSettled([task(1, 'shutdown', { desired: 'shutdown' }), task(2, 'running', { port: 32769 })], 2, 1)).toBe(true);
    expect(generationSettled([task(2, 'running', { port: 32769 })], 2, 2)).toBe(false);
    expect(allStopped([task(1, 'shutdown', { desired: 'shutdown' }), task(1, 'failed', { desired: 'shutdown' })])).toBe(true);
    expect(allStopped([task(1, 'running', { desired: 'remove' })])).toBe(false);
  });

  it('reads ports only from host-mode tasks that serve, oldest first', () => {
    const old = task(2, 'running', { port: 32771, at: 1 });
    const young = task(2, 'running', { port: 32772, at: 2 });
    expect(servingTasks([young, task(2, 'running'), old], 2).map(publishedPort)).toEqual([32771, 32772]);
    expect(taskExit(task(2, 'failed', { exit: 137 }), 5)).toEqual({ code: 137, signal: null, at: 5 });
    expect(taskExit(task(2, 'rejected'), 5)).toEqual({ code: null, signal: null, at: 5 });
  });
});

describe('reconcileServed', () => {
  it('reports the routed task ending, then the replacement swarm started with its new port', () => {
    const killed = task(4, 'failed', { id: 'routed', desired: 'shutdown', exit: 137 });
    expect(reconcileServed({ generation: 4, taskId: 'routed' }, [task(4, 'running', { id: 'routed', port: 32768 })])).toEqual({ type: 'none' });
    expect(reconcileServed({ generation: 4, taskId: 'routed' }, [killed, task(4, 'starting')])).toEqual({ type: 'crashed', task: killed });
    expect(reconcileServed({ generation: 4, taskId: 'routed' }, [])).toEqual({ type: 'crashed', task: undefined });
    expect(reconcileServed({ generation: 4, taskId: null }, [killed, task(4, 'starting')])).toEqual({ type: 'none' });
    const replacement = task(4, 'running', { port: 32790 });
    expect(reconcileServed({ generation: 4, taskId: null }, [killed, replacement])).toEqual({ type: 'started', task: replacement, port: 32790 });
    // A task of another generation never stands in for the served one.
    expect(reconcileServed({ generation: 4, taskId: null }, [task(3, 'running', { port: 32791 })])).toEqual({ type: 'none' });
  });

  it('counts crashes in a streak that a stable run resets', () => {
    expect(nextStreak(0, 10)).toBe(1);
    expect(nextStreak(3, 10)).toBe(4);
    expect(nextStreak(3, STABLE_UPTIME_MS)).toBe(1);
  });
});
