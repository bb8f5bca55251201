// The Action end to end: inputs → build.command → deterministic artifact → upload (OIDC or token,
// retried with one idempotency key) → outputs `release-id`, `status`, `url` → job summary.
// Returns the process exit code: 0 for an active (or superseded, or earlier) release, 1 otherwise.
import { readFileSync } from 'node:fs';
import { isSvcError, SvcError } from '../../src/core/errors.js';
import { packArtifact, readDeployConfig, type PackedArtifact } from '../../src/artifacts/index.js';
import { readActionSettings, type ActionSettings } from './action-inputs.js';
import { buildApp } from './build-app.js';
import { requestIdToken } from './id-token.js';
import { idempotencyKeyFor } from './idempotency-key.js';
import { renderJobSummary, type SummaryFacts } from './job-summary.js';
import { RemoteError } from './remote-error.js';
import { uploadWithRetry } from './upload-with-retry.js';
import { workflowIo, type ActionEnv, type WorkflowIo } from './workflow-commands.js';

/** Run the Action with the runner's environment; never throws. */
export async function runAction(env: ActionEnv, cwd: string, io: WorkflowIo = workflowIo()): Promise<number> {
  let settings: ActionSettings | null = null;
  let packed: PackedArtifact | null = null;
  let attempts: number | null = null;
  const log = (line: string) => io.log(line);
  try {
    settings = readActionSettings(io.input, env, cwd, () => JSON.parse(readFileSync(env.GITHUB_EVENT_PATH ?? '', 'utf8')) as unknown);
    const s = settings;
    if (s.token) io.mask(s.token);
    else if (!s.idTokenRequest)
      throw new SvcError(
        'SVC_ACTION_NO_CREDENTIAL',
        'No credential: add `permissions: id-token: write` to the job (GitHub Actions OIDC), or pass a project-scoped token in `token`.',
      );

    const config = await readDeployConfig(s.appDir);
    if (s.build) {
      await io.group(`Build: ${config.build.command.join(' ')}`, () => buildApp(config.build.command, s.appDir, env));
    }
    packed = await packArtifact(s.appDir, { config });
    log(`Packed ${packed.fileCount} files (${packed.bytes.length} bytes, sha256 ${packed.digest}).`);

    const authorization = async (): Promise<string> => {
      if (s.token) return `Bearer ${s.token}`;
      const idToken = await requestIdToken(s.idTokenRequest!, s.audience);
      io.mask(idToken);
      return `Bearer ${idToken}`;
    };
    const outcome = await uploadWithRetry({
      server: s.server,
      project: s.project,
      bytes: packed.bytes,
      digest: packed.digest,
      idempotencyKey: idempotencyKeyFor(s.repositoryId, s.sha, packed.digest),
      sha: s.sha,
      preview: s.preview,
      repositoryId: s.repositoryId,
      authorization,
      maxAttempts: s.maxAttempts,
      timeoutMs: s.requestTimeoutMs,
      retryBaseMs: s.retryBaseMs,
      log,
    });
    attempts = outcome.attempts;
    if (outcome.kind === 'superseded') {
      io.annotate('warning', `Not released: ${outcome.message}`, 'svc: commit superseded');
      return await finish(
        io,
        { status: 'superseded', releaseId: null, url: null, problem: { code: 'SVC_GITHUB_COMMIT_SUPERSEDED', message: outcome.message } },
        settings,
        packed,
        attempts,
        null,
      );
    }
    const { release, created, url } = outcome.response;
    const problem = release.failure ? { code: release.failure.code, message: `${release.failure.step}: ${release.failure.message}` } : null;
    if (release.status === 'failed')
      io.annotate('error', `Release ${release.id} failed at ${problem?.message ?? 'an unknown step'} (${problem?.code ?? 'no code'})`, 'svc: release failed');
    else if (release.status === 'inactive')
      io.annotate('notice', `This artifact was released earlier as ${release.id}; a newer release is active now.`, 'svc: already released');
    else log(`Release ${release.id} is ${release.status}${url ? ` at ${url}` : ''}.`);
    const code = release.status === 'active' || release.status === 'inactive' ? 0 : 1;
    await finish(io, { status: release.status, releaseId: release.id, url: url ?? null, problem }, settings, packed, attempts, created);
    return code;
  } catch (error) {
    const problem = describe(error);
    io.annotate('error', `${problem.message} (${problem.code})`, 'svc deploy failed');
    return await finish(io, { status: 'error', releaseId: null, url: null, problem }, settings, packed, attempts, null, 1);
  }
}

async function finish(
  io: WorkflowIo,
  result: { status: string; releaseId: string | null; url: string | null; problem: SummaryFacts['problem'] },
  settings: ActionSettings | null,
  packed: PackedArtifact | null,
  attempts: number | null,
  created: boolean | null,
  exitCode = 0,
): Promise<number> {
  io.setOutputs({ 'release-id': result.releaseId ?? '', status: result.status, url: result.url ?? '' });
  await io.appendSummary(
    renderJobSummary({
      ...result,
      project: settings?.project ?? '?',
      sha: settings?.sha ?? '?',
      repository: settings?.repository ?? null,
      digest: packed?.digest ?? null,
      fileCount: packed?.fileCount ?? null,
      artifactBytes: packed?.bytes.length ?? null,
      auth: settings?.token ? 'token' : 'oidc',
      attempts,
      created,
    }),
  );
  return exitCode;
}

function describe(error: unknown): { code: string; message: string } {
  if (isSvcError(error) || error instanceof RemoteError) return { code: error.code, message: error.message };
  return { code: 'SVC_INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
