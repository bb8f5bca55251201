import { describe, expect, it } from 'vitest';
import {
  swarmServiceSchema,
  swarmTaskListSchema,
  swarmTaskSchema,
  type SwarmTask,
  type SwarmTaskState,
  type SwarmUpdateStatus,
} from '../../../runner/swarm/engine-schemas.js';
import { swarmVerdict, type SwarmVerdict } from '../../../runner/swarm/update-verdict.js';

let next = 0;
function task(generation: number, state: SwarmTaskState, desired: SwarmTaskState = 'running', err?: string): SwarmTask {
  next += 1;
  return swarmTaskSchema.parse({
    ID: `t${next}`,
    ServiceID: 's1',
    DesiredState: desired,
    Spec: { ContainerSpec: { Labels: { 'svc.generation': String(generation) } } },
    Status: { State: state, ...(err === undefined ? {} : { Err: err }) },
  });
}
const status = (State: SwarmUpdateStatus['State'], Message?: string): SwarmUpdateStatus => ({ State, ...(Message === undefined ? {} : { Message }) });

const unhealthy = 'task: non-zero exit (137): dockerexec: unhealthy container';
const rows: Array<[string, SwarmUpdateStatus | undefined, SwarmTask[], number, SwarmVerdict]> = [
  ['fresh service, task starting', undefined, [task(2, 'starting')], 1, { kind: 'pending' }],
  ['fresh service, task running', undefined, [task(2, 'running')], 1, { kind: 'healthy' }],
  ['fresh service, 1 of 2 running', undefined, [task(2, 'running'), task(2, 'preparing')], 2, { kind: 'pending' }],
  [
    'fresh service, task rejected, none in progress',
    undefined,
    [task(2, 'rejected', 'shutdown', 'no such image')],
    1,
    { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: 'no task of generation 2 runs: task rejected: no such image' },
  ],
  ['updating', status('updating'), [task(1, 'running'), task(2, 'running')], 1, { kind: 'pending' }],
  ['completed, new task runs, old shut down', status('completed'), [task(1, 'shutdown', 'shutdown'), task(2, 'running')], 1, { kind: 'healthy' }],
  ['completed but an old task still wanted running', status('completed'), [task(1, 'running'), task(2, 'running')], 1, { kind: 'pending' }],
  ['completed but no task of the new generation yet', status('completed'), [task(1, 'running')], 1, { kind: 'pending' }],
  ['completed but the new task is only starting', status('completed'), [task(2, 'starting')], 1, { kind: 'pending' }],
  ['completed but running task is being shut down', status('completed'), [task(2, 'running', 'shutdown')], 1, { kind: 'pending' }],
  [
    'completed but the new task failed and nothing replaces it',
    status('completed'),
    [task(2, 'failed', 'shutdown', 'task: non-zero exit (1)')],
    1,
    { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: 'the update completed but no task of generation 2 runs: task failed: task: non-zero exit (1)' },
  ],
  ['completed, a failed task was replaced by a running one', status('completed'), [task(2, 'failed', 'shutdown'), task(2, 'running')], 1, { kind: 'healthy' }],
  [
    'rollback started after an unhealthy task',
    status('rollback_started', 'update rolled back due to failure or early termination of task t1'),
    [task(1, 'running'), task(2, 'failed', 'shutdown', unhealthy)],
    1,
    {
      kind: 'failed',
      code: 'SVC_HEALTH_CHECK_FAILED',
      reason: `the update is being rolled back (update rolled back due to failure or early termination of task t1): ${unhealthy}`,
    },
  ],
  [
    'rollback completed without task evidence',
    status('rollback_completed'),
    [task(1, 'running')],
    1,
    { kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', reason: 'the update was rolled back' },
  ],
  [
    'rollback paused',
    status('rollback_paused', 'x'),
    [task(2, 'rejected', 'shutdown', 'port')],
    1,
    { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: 'the update failed and its rollback paused (x): task rejected: port' },
  ],
  [
    'update paused',
    status('paused'),
    [task(2, 'failed', 'shutdown', unhealthy)],
    1,
    { kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', reason: `the update paused: ${unhealthy}` },
  ],
  [
    'rolled back even though the new task runs',
    status('rollback_completed'),
    [task(2, 'running', 'shutdown')],
    1,
    { kind: 'failed', code: 'SVC_HEALTH_CHECK_FAILED', reason: 'the update was rolled back' },
  ],
];

describe('swarmVerdict', () => {
  it.each(rows)('%s', (_name, updateStatus, tasks, replicas, verdict) => {
    expect(swarmVerdict({ updateStatus, tasks, generation: 2, replicas })).toEqual(verdict);
  });
});

describe('engine schemas', () => {
  it('accept Engine answers with extra fields and read what the verdict needs', () => {
    const tasks = swarmTaskListSchema.parse([
      {
        ID: 'abc',
        Version: { Index: 12 },
        ServiceID: 'svc1',
        NodeID: 'node1',
        Slot: 1,
        DesiredState: 'running',
        Spec: { ContainerSpec: { Image: 'x', Labels: { 'svc.generation': '3' } }, ForceUpdate: 3 },
        Status: {
          Timestamp: '2026-01-01T00:00:00Z',
          State: 'running',
          Message: 'started',
          ContainerStatus: { ContainerID: 'c1', PID: 5, ExitCode: 0 },
          PortStatus: { Ports: [{ Protocol: 'tcp', TargetPort: 3000, PublishedPort: 30123, PublishMode: 'host' }] },
        },
      },
    ]);
    expect(tasks[0]?.Status.PortStatus?.Ports?.[0]?.PublishedPort).toBe(30123);
    const service = swarmServiceSchema.parse({
      ID: 's',
      Version: { Index: 4 },
      Spec: { Name: 'svc-a-p', Labels: {} },
      UpdateStatus: { State: 'rollback_completed', Message: 'm' },
      Endpoint: {},
    });
    expect(service.UpdateStatus?.State).toBe('rollback_completed');
  });

  it('refuse unknown states and missing fields', () => {
    expect(swarmTaskSchema.safeParse({ ID: 'a', ServiceID: 's', DesiredState: 'running', Spec: {}, Status: { State: 'exploded' } }).success).toBe(false);
    expect(swarmTaskSchema.safeParse({ ID: 'a', ServiceID: 's', DesiredState: 'running', Spec: {} }).success).toBe(false);
    expect(swarmServiceSchema.safeParse({ ID: 's', Version: { Index: 1 }, Spec: { Name: 'n' }, UpdateStatus: { State: 'rolling' } }).success).toBe(false);
  });
});
