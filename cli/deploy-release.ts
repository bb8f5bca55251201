// `svc deploy` without --dry-run: pack what the dry run packs, link (or create) the project, keep a
// private attempt record with the idempotency key, upload with progress, follow the release's steps
// as the server records them (the upload answers once the candidate exists), and report the release.
import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { SvcError, errorCodes, type ErrorCode } from '../src/core/errors.js';
import { formatBytes } from '../src/core/format-bytes.js';
import { projectResponseSchema, projectRoutes } from '../src/projects/contract.js';
import type { Release } from '../src/releases/contract.js';
import { connect, type ApiClient } from './api-client.js';
import {
  attemptRecordPath,
  attemptVerdict,
  deleteAttemptRecord,
  isAmbiguousUploadFailure,
  newAttemptRecord,
  pruneAttemptRecords,
  readAttemptRecord,
  writeAttemptRecord,
} from './attempt-record.js';
import type { CliContext } from './context.js';
import { ensureProjectLink, type LinkFlags } from './ensure-project-link.js';
import { followRelease } from './follow-release.js';
import { printable } from './format-table.js';
import { formatPairs, ReportedError, toSvcError } from './output.js';
import { uploadArtifact } from './upload-artifact.js';

/** Flags of a real (uploading) deploy. */
export interface DeployReleaseOptions extends LinkFlags {
  build: boolean;
  server?: string | undefined;
}

/** The `--json` document of `svc deploy`. */
export interface DeployResult {
  project: { id: string; slug: string; url: string | null; created: boolean };
  release: Release;
  /** False when the server replayed an earlier upload with the same idempotency key. */
  created: boolean;
  /** True when the idempotency key came from a kept attempt record. */
  resumed: boolean;
  digest: string;
  error?: { code: string; message: string };
}

/** Build, upload and report one release; throws (exit code from the error kind) unless it became active. */
export async function deployRelease(ctx: CliContext, options: DeployReleaseOptions): Promise<void> {
  const phases = ctx.out.phases();
  const { client, credentials } = await connect(ctx, { server: options.server });
  const token = credentials.token as string;
  const appDir = ctx.cwd;
  phases.phase('pack');
  const { packApp } = await import('./pack-app.js');
  const { packed, config } = await packApp(appDir, ctx, { build: options.build });
  const { link, created: createdProject } = await ensureProjectLink(ctx, client, credentials.server, appDir, options);

  const now = ctx.clock.now();
  await pruneAttemptRecords(appDir, now);
  const target = { server: credentials.server, projectId: link.projectId, digest: packed.digest };
  const kept = await readAttemptRecord(appDir, packed.digest);
  const resumed = attemptVerdict(kept, target, now) === 'reuse';
  const record = resumed && kept ? kept : newAttemptRecord(target, `svc-cli-${randomUUID()}`, now);
  const recordPath = relative(appDir, attemptRecordPath(appDir, packed.digest));
  if (resumed) ctx.out.note(`Resuming the upload attempt of ${record.createdAt} (idempotency key from ${recordPath}); no second release will be created.`);
  // Written before the upload starts: a crash or cut connection after this point leaves the key behind.
  else await writeAttemptRecord(appDir, record);

  const timeoutMs = 120_000 + config.health.timeoutMs * 2;
  phases.phase('upload');
  let answer;
  try {
    answer = await uploadArtifact({
      server: credentials.server,
      token,
      projectId: link.projectId,
      bytes: packed.bytes,
      digest: packed.digest,
      idempotencyKey: record.idempotencyKey,
      http: ctx.http,
      timeoutMs,
      onProgress: (sent, total) => phases.detail(`Uploading ${formatBytes(sent)} / ${formatBytes(total)}`),
    });
  } catch (error) {
    throw await uploadFailure(appDir, packed.digest, recordPath, toSvcError(error));
  }
  ctx.out.note(`${ctx.out.paint('green')('✓')} Uploaded ${formatBytes(packed.bytes.length)} to ${link.slug}`);

  let release = answer.body.release;
  if (release.status === 'candidate') {
    const target = { server: credentials.server, token, client, projectId: link.projectId, release, phases, pollTimeoutMs: timeoutMs };
    release = await followRelease(ctx, target).catch((error: unknown) => {
      throw outcomeUnknown(toSvcError(error), release.id, recordPath);
    });
  }
  // A definite outcome (active or failed): the key has done its job.
  await deleteAttemptRecord(appDir, packed.digest);
  const url = createdProject?.status.url ?? (await projectUrl(client, link.projectId));
  const result: DeployResult = {
    project: { id: link.projectId, slug: link.slug, url, created: createdProject !== undefined },
    release,
    created: answer.body.created,
    resumed,
    digest: packed.digest,
  };
  if (release.status === 'active') {
    ctx.out.result(result, () => deployLines(ctx, result));
    return;
  }
  const failure = releaseError(release);
  ctx.out.result({ ...result, error: { code: failure.code, message: failure.message } }, () => deployLines(ctx, result));
  if (!ctx.json) ctx.out.error(failure);
  throw new ReportedError(failure);
}

// Keep the record only when the release may exist; say how to resume.
async function uploadFailure(appDir: string, digest: string, recordPath: string, error: SvcError): Promise<SvcError> {
  if (!isAmbiguousUploadFailure(error)) {
    await deleteAttemptRecord(appDir, digest);
    return error;
  }
  return new SvcError(
    'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN',
    `${error.code}: ${error.message}. The release may or may not exist; run the same command again to resume with the key kept in ${recordPath}.`,
    {
      cause: error,
      details: { cause: error.code, attemptRecord: recordPath },
    },
  );
}

// The release exists but its outcome could not be followed: keep the key, say how to find out.
function outcomeUnknown(error: SvcError, releaseId: string, recordPath: string): SvcError {
  return new SvcError(
    'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN',
    `Release ${releaseId} was uploaded, but its outcome is unknown (${error.code}: ${error.message}). Check \`svc releases\`, or run the same command again to resume with the key kept in ${recordPath}.`,
    { cause: error, details: { cause: error.code, releaseId, attemptRecord: recordPath } },
  );
}

async function projectUrl(client: ApiClient, projectId: string): Promise<string | null> {
  try {
    const { project } = await client.request({
      method: 'GET',
      path: projectRoutes.project.replace(':id', encodeURIComponent(projectId)),
      schema: projectResponseSchema,
    });
    return project.status.url;
  } catch {
    return null;
  }
}

/** The error a failed release exits with: its own failure code when this CLI knows it. */
export function releaseError(release: Release): SvcError {
  const failure = release.failure;
  const code = failure && Object.hasOwn(errorCodes, failure.code) ? (failure.code as ErrorCode) : 'SVC_RELEASE_FAILED';
  const reason = failure ? `${failure.step}: ${failure.message}` : `status ${release.status}`;
  return new SvcError(code, `Release ${release.id} failed at ${reason}`, {
    details: { releaseId: release.id, step: failure?.step ?? null, remoteCode: failure?.code ?? null },
  });
}

function deployLines(ctx: CliContext, result: DeployResult): string[] {
  const r = result.release;
  const ok = r.status === 'active';
  const head = ok
    ? `${ctx.out.paint('green')('✓')} Release ${r.id} is active${result.created ? '' : ' (replayed: the server already had this upload)'}`
    : `${ctx.out.paint('red')('✗')} Release ${r.id} failed${r.failure ? ` at ${r.failure.step}` : ''}`;
  const pairs: Array<[string, string]> = [
    ['Project', `${result.project.slug} (${result.project.id})`],
    ['Release', r.id],
    ['Status', r.status],
    ['Digest', result.digest],
  ];
  if (r.failure) pairs.push(['Reason', `${r.failure.code}: ${r.failure.message}`]);
  if (r.failure?.hint) pairs.push(['Hint', r.failure.hint]);
  if (result.project.url) pairs.push(['URL', result.project.url]);
  const output = r.failure?.outputTail?.length ? ['', 'Last output before it failed:', ...r.failure.outputTail.map((line) => `  │ ${printable(line)}`)] : [];
  const tail = ok
    ? []
    : [
        '',
        'The previous release (if any) is still serving and the pre-deploy database was restored. See `svc releases` and `svc logs --release ' + r.id + '`.',
      ];
  return [head, ...formatPairs(pairs).map((line) => `  ${printable(line)}`), ...output, ...tail];
}
