import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPod } from 'kubernetes-models/v1/Pod';
import { describe, expect, it } from 'vitest';
import { releaseDeployment } from '../../../runner/kubernetes/deployment.js';
import { rolloutVerdict } from '../../../runner/kubernetes/rollout-verdict.js';
import { appInput } from './kubernetes-fixture.js';

type Status = NonNullable<IDeployment['status']>;

/** The generated Deployment as the API server answers it: a metadata.generation and a status. */
function readBack(status: Status, generation = 2, replicas = 1): IDeployment {
  const d = releaseDeployment({ ...appInput, replicas });
  return { ...d, metadata: { ...d.metadata, generation }, status };
}

function pod(name: string, generation: string, waiting?: { reason: string; message?: string }): IPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'svc.generation': generation } },
    status: {
      containerStatuses: [{ name: 'app', image: 'x', imageID: '', ready: false, restartCount: 3, ...(waiting === undefined ? {} : { state: { waiting } }) }],
    },
  };
}

const done: Status = {
  observedGeneration: 2,
  replicas: 1,
  updatedReplicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
};

describe('rolloutVerdict', () => {
  it('is healthy once every wanted pod of the new generation is available and no old pod is left', () => {
    expect(rolloutVerdict({ deployment: readBack(done), pods: [], generation: 7 })).toEqual({ kind: 'healthy' });
    expect(rolloutVerdict({ deployment: readBack({ ...done, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }, 2, 3), pods: [], generation: 7 })).toEqual(
      { kind: 'healthy' },
    );
  });

  it('is pending while the controller has not seen the template, the new pod is not ready, or an old pod still runs', () => {
    expect(rolloutVerdict({ deployment: readBack({ ...done, observedGeneration: 1 }), pods: [], generation: 7 })).toEqual({ kind: 'pending' });
    expect(rolloutVerdict({ deployment: readBack({ ...done, availableReplicas: 0, readyReplicas: 0 }), pods: [pod('new', '7')], generation: 7 })).toEqual({
      kind: 'pending',
    });
    expect(rolloutVerdict({ deployment: readBack({ ...done, replicas: 2 }), pods: [], generation: 7 })).toEqual({ kind: 'pending' });
    expect(rolloutVerdict({ deployment: readBack({ ...done, replicas: 2, updatedReplicas: 2, availableReplicas: 2 }, 2, 3), pods: [], generation: 7 })).toEqual(
      { kind: 'pending' },
    );
  });

  it('fails on a missed progress deadline as a health failure', () => {
    const status: Status = {
      ...done,
      availableReplicas: 0,
      replicas: 2,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "app-1" has timed out progressing.' }],
    };
    expect(rolloutVerdict({ deployment: readBack(status), pods: [pod('new', '7')], generation: 7 })).toEqual({
      kind: 'failed',
      code: 'SVC_HEALTH_CHECK_FAILED',
      reason: 'no new pod turned ready on the health path in time (ReplicaSet "app-1" has timed out progressing.)',
    });
  });

  it('fails at once on a crash loop or an image that cannot be pulled, only for pods of the new generation', () => {
    const pending: Status = { ...done, availableReplicas: 0 };
    expect(
      rolloutVerdict({ deployment: readBack(pending), pods: [pod('new', '7', { reason: 'CrashLoopBackOff', message: 'back-off 10s' })], generation: 7 }),
    ).toEqual({
      kind: 'failed',
      code: 'SVC_APP_START_FAILED',
      reason: 'pod new: CrashLoopBackOff: back-off 10s',
    });
    expect(rolloutVerdict({ deployment: readBack(pending), pods: [pod('new', '7', { reason: 'ImagePullBackOff' })], generation: 7 })).toMatchObject({
      kind: 'failed',
      code: 'SVC_APP_START_FAILED',
    });
    expect(rolloutVerdict({ deployment: readBack(pending), pods: [pod('old', '6', { reason: 'CrashLoopBackOff' })], generation: 7 })).toEqual({
      kind: 'pending',
    });
    expect(rolloutVerdict({ deployment: readBack(pending), pods: [pod('new', '7', { reason: 'ContainerCreating' })], generation: 7 })).toEqual({
      kind: 'pending',
    });
  });

  it('fails when pods cannot be created (quota, Pod Security) or the Deployment holds another generation', () => {
    const refused: Status = {
      ...done,
      availableReplicas: 0,
      conditions: [
        { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "app-x" is forbidden: violates PodSecurity "restricted:latest"' },
      ],
    };
    expect(rolloutVerdict({ deployment: readBack(refused), pods: [], generation: 7 })).toMatchObject({
      kind: 'failed',
      code: 'SVC_APP_START_FAILED',
      reason: expect.stringContaining('PodSecurity'),
    });
    expect(rolloutVerdict({ deployment: readBack(done), pods: [], generation: 8 })).toEqual({
      kind: 'failed',
      code: 'SVC_APP_START_FAILED',
      reason: 'the Deployment holds generation 7, not 8',
    });
  });
});
