// A job task: fetch the job's description, the release when the job reads its migrations and the
// input when it restores one, run the job with runner/jobs, upload its output, and report the result.
// The task is the job, so migrations run in this process. Whatever happens, a result is reported.
import { join } from 'node:path';
import { isSvcError, SvcError } from '../../../src/core/errors.js';
import { migrateDatabase } from '../../jobs/apply-migrations.js';
import { runReleaseJob } from '../../jobs/run-release-job.js';
import type { ReleaseJob } from '../../release-driver.js';
import { jobDescriptionSchema, RELEASE_ENDPOINT_PATHS, type JobResult, type TaskJobValues } from '../swarm-job-protocol.js';
import { fromTaskJob } from '../task-job-paths.js';
import type { EndpointClient } from './endpoint-client.js';
import { fetchRelease } from './fetch-release.js';
import { taskReleaseDir, type TaskSettings } from './task-settings.js';

async function runJob(jobId: string, settings: TaskSettings, client: EndpointClient): Promise<TaskJobValues[ReleaseJob['type']]> {
  const at = (path: string): URL => new URL(path, settings.artifactUrl.origin);
  const description = await client.getJson(at(RELEASE_ENDPOINT_PATHS.job(jobId)), jobDescriptionSchema);
  const releaseDir = taskReleaseDir(settings);
  if (description.needsRelease) {
    if (description.releaseId !== settings.releaseId) {
      throw new SvcError('SVC_SWARM_TASK_CONFIG', `Job ${jobId} reads release ${description.releaseId} but the task was given release ${settings.releaseId}`);
    }
    await fetchRelease(client, {
      url: at(RELEASE_ENDPOINT_PATHS.artifact(description.releaseId)),
      digest: settings.releaseDigest,
      tmpDir: settings.tmpDir,
      releaseDir,
    });
  }
  const snapshotPath = join(settings.tmpDir, `svc-job-${jobId}.snapshot`);
  if (description.job.type === 'restore-snapshot') await client.download(at(RELEASE_ENDPOINT_PATHS.jobInput(jobId)), snapshotPath);
  const job = fromTaskJob(description.job, { dataDir: settings.dataDir, releaseDir, snapshotPath });
  const value = await runReleaseJob(job, { migrate: migrateDatabase });
  if (job.type === 'restore-snapshot') return null;
  if (job.type === 'snapshot') {
    const snapshot = value as { sizeBytes: number; hadDatabase: boolean };
    const stored = (await client.upload(at(RELEASE_ENDPOINT_PATHS.jobOutput(jobId)), snapshotPath)) as { sizeBytes?: unknown };
    if (stored.sizeBytes !== snapshot.sizeBytes)
      throw new SvcError('SVC_SNAPSHOT_FAILED', `The endpoint stored ${String(stored.sizeBytes)} of the snapshot's ${snapshot.sizeBytes} bytes`);
    return { sizeBytes: snapshot.sizeBytes, hadDatabase: snapshot.hadDatabase };
  }
  return value as TaskJobValues[ReleaseJob['type']];
}

/**
 * Run job `jobId` and report its result: 0 once the endpoint accepted a result (the job's failure
 * travels in it), 1 when no result could be delivered.
 */
export async function runTaskJob(jobId: string, settings: TaskSettings, client: EndpointClient, say: (line: string) => void): Promise<number> {
  let result: JobResult;
  try {
    result = { ok: true, value: await runJob(jobId, settings, client) };
  } catch (error) {
    const code = isSvcError(error) ? error.code : 'SVC_INTERNAL';
    const message = error instanceof Error ? error.message : String(error);
    say(`job ${jobId} failed: ${code}: ${message}`);
    result = { ok: false, code, message: message.slice(0, 4000) };
  }
  try {
    await client.putJson(new URL(RELEASE_ENDPOINT_PATHS.jobResult(jobId), settings.artifactUrl.origin), result);
    return 0;
  } catch (error) {
    say(
      `the result of job ${jobId} could not be delivered: ${isSvcError(error) ? `${error.code}: ` : ''}${error instanceof Error ? error.message : String(error)}`,
    );
    return 1;
  }
}
