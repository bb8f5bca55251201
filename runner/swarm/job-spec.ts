// `POST /services/create` body for one-off work beside a project's data (migrate, snapshot, restore
// and the read-only checks): a replicated job that runs once, never restarts, with the project's
// volume on the node that holds it. What the job does (its paths, values, input and output) travels
// through the release endpoint, so the spec names only the job id. Pure.
import { SvcError } from '../../src/core/errors.js';
import type { ReleaseJob } from '../release-driver.js';
import type { EngineServiceSpec } from './engine-spec.js';
import { SWARM_LABELS, swarmJobServiceName } from './swarm-names.js';
import { swarmLabels, swarmTaskTemplate, type SwarmTaskInput } from './swarm-task-template.js';

const JOB_TYPES: ReadonlySet<string> = new Set<ReleaseJob['type']>([
  'precheck',
  'migrate',
  'snapshot',
  'restore-snapshot',
  'unapplied-migrations',
  'database-footprint',
]);

export interface ReleaseJobInput extends SwarmTaskInput {
  /** Unique per job run: names the job's service; the task fetches its description (paths, values) by it. */
  jobId: string;
  type: ReleaseJob['type'];
}

/**
 * The spec of one job run: one replicated task that is never restarted, `job <jobId>`. Not a
 * `ReplicatedJob`: dockerd 20.10 leaves a removed job service's exited containers behind, and they
 * keep the project volume in use (project deletion could never remove it); a plain replicated service's
 * containers go with it.
 */
export function releaseJobSpec(input: ReleaseJobInput): EngineServiceSpec {
  if (!JOB_TYPES.has(input.type)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `Unknown job type ${input.type}`);
  const name = swarmJobServiceName(input.projectId, input.jobId);
  const labels = { ...swarmLabels(input, 'job'), [SWARM_LABELS.job]: input.type };
  const template = swarmTaskTemplate(input, {
    role: 'job',
    env: {},
    secrets: [],
    args: ['job', input.jobId],
    port: 0,
    restart: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
    extraLabels: { [SWARM_LABELS.job]: input.type },
  });
  return {
    Name: name,
    Labels: labels,
    TaskTemplate: template,
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: { Mode: 'dnsrr', Ports: [] },
  };
}
