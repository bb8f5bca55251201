// The Job of one piece of one-off work beside a project's data (migrate, snapshot, restore-snapshot and
// the read-only checks): one pod, never retried (backoffLimit 0: a failed migration is not run twice),
// the same claim, node and hardening as the app, removed a while after it finished. As in the swarm
// layer, the pod is told only its job id (`job <jobId>`): what the job does (paths, values) and its
// answer travel through the release endpoint, never through the spec. Pure.
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { SvcError } from '../../src/core/errors.js';
import type { ReleaseJob } from '../release-driver.js';
import { artifactCredentialName, jobName, KUBERNETES_LABELS, projectNamespaceName } from './kubernetes-names.js';
import { wholeSeconds } from './kubernetes-quantities.js';
import { releaseAnnotations, releaseLabels, releasePodTemplate } from './pod-template.js';
import type { KubernetesReleaseInput } from './release-input.js';

export const JOB_TYPES: readonly ReleaseJob['type'][] = ['precheck', 'migrate', 'snapshot', 'restore-snapshot', 'unapplied-migrations', 'database-footprint'];
/** Seconds a finished Job (and its pod, with the answer in its termination message) is kept. */
export const JOB_TTL_SECONDS = 600;

export interface KubernetesJobInput extends KubernetesReleaseInput {
  /** Unique per job run: names the Job; the entrypoint fetches the job's description by it. */
  jobId: string;
  type: ReleaseJob['type'];
  /** Default JOB_TTL_SECONDS. */
  ttlSecondsAfterFinished?: number;
  /** The Job's deadline; absent: the driver's own deadline alone. */
  timeoutMs?: number;
}

/** The Job of one job run. */
export function releaseJob(input: KubernetesJobInput): IJob {
  if (!JOB_TYPES.includes(input.type)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `Unknown job type ${input.type}`);
  const ttl = input.ttlSecondsAfterFinished ?? JOB_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl < 0) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The TTL after a job finished must be a whole number of seconds');
  const jobLabel = { [KUBERNETES_LABELS.job]: input.type };
  const template = releasePodTemplate(input, {
    role: 'job',
    args: ['job', input.jobId],
    port: 0,
    env: {},
    secretNames: [],
    credentialSecret: artifactCredentialName('job', input.jobId),
    extraLabels: jobLabel,
  });
  const name = jobName(input.jobId);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: projectNamespaceName(input.projectId),
      labels: { ...releaseLabels(input, 'job'), ...jobLabel },
      annotations: { ...releaseAnnotations(input), 'svc.job-id': input.jobId },
    },
    spec: {
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      ttlSecondsAfterFinished: ttl,
      ...(input.timeoutMs === undefined ? {} : { activeDeadlineSeconds: wholeSeconds(input.timeoutMs) }),
      template,
    },
  };
}
