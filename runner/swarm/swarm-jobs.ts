// The pipeline's one-off jobs as swarm replicated jobs on the node holding the project's volume.
// A job's description, input and output travel through the release endpoint (the task runs
// `job <jobId>`): database paths become paths in the volume, a snapshot's bytes are written by the
// endpoint where the pipeline said (a control-plane path, so backups and drills keep working), a
// restore's snapshot is served from there. The result comes back over `/result`; a job task that ends
// without one fails with SVC_SWARM_JOB_FAILED and its last log lines. The task's output goes into the
// project log (`[<type> job] <line>`), then the job service is removed.
import { randomBytes } from 'node:crypto';
import type { ErrorCode } from '../../src/core/error-codes/index.js';
import { errorCodes, SvcError } from '../../src/core/errors.js';
import type { LogStore, ReleaseJob, ReleaseJobResults } from '../release-driver.js';
import { createProjectSecret } from './generation-secrets.js';
import { releaseJobSpec } from './job-spec.js';
import type { KeptArtifacts } from './kept-artifacts.js';
import type { ReleaseEndpointJobs } from './release-endpoint.js';
import { APP_STOP_GRACE_MS, ensureProjectNetwork, projectNode, RELEASE_TMPFS_SIZE } from './release-launch.js';
import { JOBS_NEEDING_RELEASE, RELEASE_ENDPOINT_PATHS, TASK_DATA_DIR, type JobDescription, type JobResult } from './swarm-job-protocol.js';
import { SWARM_LABELS } from './swarm-names.js';
import type { SwarmRuntime } from './swarm-runtime.js';
import { defaultContainerLimits, type ContainerLimits } from '../container/podman-args.js';
import { imageMissing, taskEnded, taskReason } from './task-observation.js';
import { imageMissingError } from './image-missing.js';
import { toTaskJob } from './task-job-paths.js';

/** The release id jobs that read no release carry (labels, the entrypoint's SVC_RELEASE_ID). */
export const NO_RELEASE = 'none';
const NO_DIGEST = '0'.repeat(64);
const POLL_MS = 250;
const LOG_LINES = 20;
/** How long a job task that reported may take to exit before its output is copied. */
const OUTPUT_WAIT_MS = 2_000;

/** Where a control-plane path lies: its project and data directory, and the release holding it. */
export type LocatePath = (path: string) => { projectId: string; dataDir: string; releaseId?: string; releaseDir?: string } | null;

interface JobRun {
  projectId: string;
  /** The release whose migrations the job reads (its task fetches that artifact). */
  releaseDir: string | undefined;
  description: JobDescription;
  input: string | null;
  output: string | null;
  result: JobResult | null;
}

export interface SwarmJobsDeps {
  runtime: () => Promise<SwarmRuntime>;
  artifacts: KeptArtifacts;
  locate: LocatePath;
  /** Limits of the job tasks (default: the podman runner's). */
  limits?: ContainerLimits;
  /** Where a job's output goes (the project log). */
  logs: LogStore;
  sleep?: (ms: number) => Promise<void>;
}

function databasePathOf(job: ReleaseJob): string {
  return job.type === 'precheck' || job.type === 'migrate' ? job.target.databasePath : job.databasePath;
}

function migrationsDirOf(job: ReleaseJob): string | undefined {
  if (job.type === 'precheck' || job.type === 'migrate') return job.target.migrationsDir;
  return job.type === 'unapplied-migrations' ? job.migrationsDir : undefined;
}

/** The runs the release endpoint serves, and the driver's runJob over them. */
export class SwarmJobs implements ReleaseEndpointJobs {
  private readonly runs = new Map<string, JobRun>();
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: SwarmJobsDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  describe(jobId: string): JobDescription | null {
    return this.runs.get(jobId)?.description ?? null;
  }

  inputFor(jobId: string): string | null {
    return this.runs.get(jobId)?.input ?? null;
  }

  outputFor(jobId: string): string | null {
    return this.runs.get(jobId)?.output ?? null;
  }

  /** The directory of a release a running job reads (the endpoint serves its artifact to the job). */
  releaseDirOf(releaseId: string): string | undefined {
    for (const run of this.runs.values()) if (run.description.releaseId === releaseId && run.releaseDir) return run.releaseDir;
    return undefined;
  }

  acceptResult(jobId: string, result: JobResult): void {
    const run = this.runs.get(jobId);
    if (!run) throw new SvcError('SVC_RELEASE_ENDPOINT_UNKNOWN', `No running job ${jobId}`);
    if (run.result) throw new SvcError('SVC_CONFLICT', `Job ${jobId} already reported its result`);
    run.result = result;
  }

  /** Run one job as a swarm job and answer its result (the pipeline's ReleaseJobResults). */
  async run<J extends ReleaseJob>(job: J): Promise<ReleaseJobResults[J['type']]> {
    const rt = await this.deps.runtime();
    const place = this.deps.locate(databasePathOf(job));
    if (!place) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `The job's database ${databasePathOf(job)} is not inside a project`);
    const migrations = migrationsDirOf(job);
    const release = migrations === undefined ? undefined : this.deps.locate(migrations);
    if (JOBS_NEEDING_RELEASE.has(job.type) && (!release?.releaseId || !release.releaseDir || release.projectId !== place.projectId)) {
      throw new SvcError('SVC_CONTAINER_INVALID_SPEC', `The job's migrations ${migrations ?? ''} are not inside a release of project ${place.projectId}`);
    }
    const releaseId = release?.releaseId ?? NO_RELEASE;
    const taskJob = toTaskJob(job, { dataDir: place.dataDir, ...(release?.releaseDir ? { releaseDir: release.releaseDir } : {}) });
    const digest = release?.releaseDir ? (await this.deps.artifacts.require(release.releaseDir, releaseId)).sha256 : NO_DIGEST;
    const jobId = `j${randomBytes(12).toString('hex')}`;
    const run: JobRun = {
      projectId: place.projectId,
      releaseDir: release?.releaseDir,
      description: { job: taskJob, needsRelease: release?.releaseId !== undefined, releaseId },
      input: job.type === 'restore-snapshot' ? job.snapshotPath : null,
      output: job.type === 'snapshot' ? job.snapshotPath : null,
      result: null,
    };
    this.runs.set(jobId, run);
    let serviceId: string | undefined;
    let secretId: string | undefined;
    try {
      await ensureProjectNetwork(rt.engine, place.projectId);
      const node = await projectNode(rt, place.projectId);
      const credential = await createProjectSecret(rt.engine, place.projectId, 1, `job.${jobId}`, rt.access.mintJob(place.projectId, jobId), {
        [SWARM_LABELS.job]: jobId,
      });
      secretId = credential.secretId;
      const databasePath = 'target' in taskJob ? taskJob.target.databasePath : taskJob.databasePath;
      const spec = releaseJobSpec({
        jobId,
        type: job.type,
        projectId: place.projectId,
        releaseId,
        generation: 1,
        releaseDigest: digest,
        image: rt.image,
        artifactUrl: `${rt.endpointUrl}${RELEASE_ENDPOINT_PATHS.artifact(releaseId)}`,
        credential,
        nodeId: node.id,
        databaseFile: databasePath.slice(`${TASK_DATA_DIR}/`.length),
        limits: this.deps.limits ?? defaultContainerLimits,
        releaseTmpfsSize: RELEASE_TMPFS_SIZE,
        stopGraceMs: APP_STOP_GRACE_MS,
      });
      serviceId = await rt.engine.createService(spec);
      const result = await this.awaitResult(rt, jobId, run, serviceId);
      return this.answer(job, result);
    } finally {
      this.runs.delete(jobId);
      rt.access.finishJob(jobId);
      if (serviceId) await this.keepOutput(rt, serviceId, run).catch(() => undefined);
      if (serviceId) await rt.engine.removeService(serviceId).catch(() => undefined);
      if (secretId) await this.removeSecretSoon(rt, secretId);
    }
  }

  /** Copy the job task's output into the project log once the task ended (it exits right after reporting). */
  private async keepOutput(rt: SwarmRuntime, serviceId: string, run: JobRun): Promise<void> {
    for (let waited = 0; waited < OUTPUT_WAIT_MS; waited += POLL_MS) {
      if ((await rt.engine.listTasks({ service: serviceId })).every(taskEnded)) break;
      await this.sleep(POLL_MS);
    }
    const releaseId = run.description.releaseId === NO_RELEASE ? '-' : run.description.releaseId;
    const label = `[${run.description.job.type} job]`;
    for await (const batch of rt.engine.serviceLogLines(serviceId, { follow: false })) {
      this.deps.logs.append(
        run.projectId,
        batch.map((record) => ({ time: record.time, stream: record.stream, releaseId, line: `${label} ${record.line}` })),
      );
    }
  }

  /** Poll until the task reported, or it ended (or never started in time) without a result. */
  private async awaitResult(rt: SwarmRuntime, jobId: string, run: JobRun, serviceId: string): Promise<JobResult> {
    const startBy = rt.clock.now() + rt.settings.startTimeoutMs;
    for (;;) {
      if (run.result) return run.result;
      const tasks = await rt.engine.listTasks({ service: serviceId });
      const ended = tasks.find(taskEnded);
      const started = tasks.some((t) => t.Status.State === 'starting' || t.Status.State === 'running' || taskEnded(t));
      if (ended || (!started && rt.clock.now() > startBy)) {
        await this.sleep(POLL_MS); // a result sent just before the exit lands first
        if (run.result) return run.result;
        if (ended && imageMissing(ended)) throw imageMissingError(rt, ended.NodeID, `the ${run.description.job.type} job of ${run.projectId}`);
        const why = ended ? taskReason(ended) : `no task started within ${rt.settings.startTimeoutMs} ms`;
        const logs = await rt.engine.serviceLogs(serviceId, { tail: LOG_LINES }).catch((error: unknown) => `(logs unavailable: ${(error as Error).message})`);
        throw new SvcError(
          'SVC_SWARM_JOB_FAILED',
          `The ${run.description.job.type} job ${jobId} of ${run.projectId} ended without a result (${why}). Last lines:\n${logs.trim() || '(none)'}`,
          {
            details: { jobId, projectId: run.projectId },
          },
        );
      }
      await this.sleep(POLL_MS);
    }
  }

  private answer<J extends ReleaseJob>(job: J, result: JobResult): ReleaseJobResults[J['type']] {
    if (!result.ok) {
      const code: ErrorCode = Object.hasOwn(errorCodes, result.code) ? (result.code as ErrorCode) : 'SVC_SWARM_JOB_FAILED';
      throw new SvcError(code, result.message, { details: { reportedCode: result.code } });
    }
    if (job.type === 'snapshot') {
      const value = result.value as { sizeBytes: number; hadDatabase: boolean };
      return { path: job.snapshotPath, sizeBytes: value.sizeBytes, hadDatabase: value.hadDatabase } as ReleaseJobResults[J['type']];
    }
    if (job.type === 'restore-snapshot') return undefined as ReleaseJobResults[J['type']];
    return result.value as ReleaseJobResults[J['type']];
  }

  /** The engine refuses to remove a secret while the removed service's task still holds it: retry briefly. */
  private async removeSecretSoon(rt: SwarmRuntime, secretId: string): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await rt.engine.removeSecret(secretId);
        return;
      } catch {
        await this.sleep(POLL_MS);
      }
    }
  }
}
