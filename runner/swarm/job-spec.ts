// `POST /services/create` body for one-off work beside a project's data (migrate, snapshot, restore
// and the read-only checks): a replicated job that runs once, never restarts, with the project's
// volume on the node that holds it. Pure.
import { SvcError } from '../../src/core/errors.js';
import type { ReleaseJob } from '../release-driver.js';
import { SANDBOX_DATA_DIR, SANDBOX_RELEASE_DIR } from '../sandbox-layout.js';
import type { EngineServiceSpec } from './engine-spec.js';
import { SWARM_LABELS, swarmJobServiceName } from './swarm-names.js';
import { swarmLabels, swarmTaskTemplate, type SwarmTaskInput } from './swarm-task-template.js';

const JOB_TYPES: ReadonlySet<string> = new Set<ReleaseJob['type']>(['precheck', 'migrate', 'snapshot', 'restore-snapshot', 'unapplied-migrations', 'database-footprint']);

export interface ReleaseJobInput extends SwarmTaskInput {
  /** Unique per job run: names the job's service. */
  jobId: string;
  type: ReleaseJob['type'];
  /** Task paths the job reads and writes: only under /data (the volume) or /app (the release). */
  paths: readonly string[];
  /** Extra values (`now` of a migration), passed as arguments. */
  values?: readonly string[];
}

function taskPath(path: string): string {
  const under = (dir: string): boolean => path === dir || path.startsWith(`${dir}/`);
  if (!(under(SANDBOX_DATA_DIR) || under(SANDBOX_RELEASE_DIR)) || path.split('/').includes('..') || /[\0\n]/.test(path)) {
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `Job path ${path} is not inside /data or /app`);
  }
  return path;
}

/** The spec of one job run: `ReplicatedJob` with one completion, restart policy none. */
export function releaseJobSpec(input: ReleaseJobInput): EngineServiceSpec {
  if (!JOB_TYPES.has(input.type)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `Unknown job type ${input.type}`);
  const values = input.values ?? [];
  if (values.some((v) => !/^[\x21-\x7e]*$/.test(v))) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Job values must be printable without spaces');
  const labels = { ...swarmLabels(input, 'job'), [SWARM_LABELS.job]: input.type };
  const template = swarmTaskTemplate(input, {
    role: 'job',
    env: {},
    secrets: [],
    args: ['job', input.type, ...input.paths.map(taskPath), ...values],
    port: 0,
    restart: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
    extraLabels: { [SWARM_LABELS.job]: input.type },
  });
  return {
    Name: swarmJobServiceName(input.projectId, input.jobId),
    Labels: labels,
    TaskTemplate: template,
    Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
    EndpointSpec: { Mode: 'dnsrr', Ports: [] },
  };
}
