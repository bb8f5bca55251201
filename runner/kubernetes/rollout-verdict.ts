// svc's own verdict on a release's Deployment, from the Deployment's status and its pods (never the
// rollout's word alone: healthy means every wanted pod of the new generation is available and no
// old pod is left). Pure; the future driver reads both by label, checks them at its edge and polls
// until the verdict is not pending or its own deadline passes.
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { ErrorCode } from '../../src/core/error-codes/index.js';
import { KUBERNETES_LABELS } from './kubernetes-names.js';

export type RolloutVerdict = { kind: 'pending' } | { kind: 'healthy' } | { kind: 'failed'; code: ErrorCode; reason: string };

export interface RolloutVerdictInput {
  deployment: IDeployment;
  /** The Deployment's pods (any generation). */
  pods: readonly IPod[];
  /** The svc generation whose pods must serve. */
  generation: number;
}

/** Container states that will not fix themselves by waiting. */
const START_FAILURES: ReadonlySet<string> = new Set([
  'CrashLoopBackOff',
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

function startFailure(pods: readonly IPod[]): string | undefined {
  for (const pod of pods) {
    for (const status of pod.status?.containerStatuses ?? []) {
      const waiting = status.state?.waiting;
      if (waiting?.reason !== undefined && START_FAILURES.has(waiting.reason)) {
        const said = waiting.message === undefined ? '' : `: ${waiting.message}`;
        return `pod ${pod.metadata?.name ?? '?'}: ${waiting.reason}${said}`;
      }
    }
  }
  return undefined;
}

export function rolloutVerdict(input: RolloutVerdictInput): RolloutVerdict {
  const { deployment } = input;
  const wanted = String(input.generation);
  const holds = deployment.spec?.template.metadata?.labels?.[KUBERNETES_LABELS.generation];
  if (holds !== wanted) return { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: `the Deployment holds generation ${holds ?? 'none'}, not ${wanted}` };
  const status = deployment.status ?? {};
  // The controller has not seen the new template yet: every number below would be the old one's.
  if ((status.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 1)) return { kind: 'pending' };
  const fresh = input.pods.filter((p) => p.metadata?.labels?.[KUBERNETES_LABELS.generation] === wanted);
  const crashed = startFailure(fresh);
  if (crashed !== undefined) return { kind: 'failed', code: 'SVC_APP_START_FAILED', reason: crashed };
  const conditions = status.conditions ?? [];
  const replicaFailure = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  if (replicaFailure !== undefined)
    return {
      kind: 'failed',
      code: 'SVC_APP_START_FAILED',
      reason: `pods could not be created: ${replicaFailure.message ?? replicaFailure.reason ?? 'ReplicaFailure'}`,
    };
  const progressing = conditions.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      kind: 'failed',
      code: 'SVC_HEALTH_CHECK_FAILED',
      reason: `no new pod turned ready on the health path in time${progressing.message === undefined ? '' : ` (${progressing.message})`}`,
    };
  }
  const replicas = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const old = (status.replicas ?? 0) - updated;
  if (updated >= replicas && (status.availableReplicas ?? 0) >= replicas && old <= 0) return { kind: 'healthy' };
  return { kind: 'pending' };
}
