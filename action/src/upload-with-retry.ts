// Upload the artifact, retrying ambiguous and transient failures with the SAME idempotency key (svc's
// retry policy and loop, src/core), so however many attempts reach the server, one release exists.
// Each attempt gets a fresh credential (an OIDC token is single-use: the control plane rejects a
// replayed jti).
import { isSvcError } from '../../src/core/errors.js';
import { retryLoop } from '../../src/core/retry-loop.js';
import {
  COMMIT_SHA_HEADER,
  DIGEST_HEADER,
  IDEMPOTENCY_HEADER,
  REPOSITORY_ID_HEADER,
  UPLOAD_MEDIA_TYPE,
  releaseRoutes,
  uploadResponseSchema,
  type UploadResponse,
} from '../../src/releases/contract.js';
import { httpCall, type HttpReply } from './http-call.js';
import { RemoteError } from './remote-error.js';
import { shouldRetry, uploadRetryPolicy, type FailedAttempt } from './retry-policy.js';

/** The code with which the control plane refuses a commit older than the newest pushed or active one. */
export const SUPERSEDED_CODE = 'SVC_GITHUB_COMMIT_SUPERSEDED';
/** A preview upload of a commit that is no longer the pull request's head: the newer push's run deploys it. */
export const PREVIEW_SUPERSEDED_CODE = 'SVC_PREVIEW_COMMIT_SUPERSEDED';

export interface UploadPlan {
  server: string;
  project: string;
  bytes: Uint8Array;
  digest: string;
  idempotencyKey: string;
  sha: string;
  /** Pull request number of a preview upload (null: production). */
  preview: number | null;
  repositoryId: string;
  /** A fresh `Authorization` value for each attempt. */
  authorization: () => Promise<string>;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  log: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1] for the retry jitter (default Math.random). */
  random?: () => number;
}

/** Released (the response, whatever the release's status) or refused as superseded. */
export type UploadOutcome = { kind: 'released'; response: UploadResponse; attempts: number } | { kind: 'superseded'; message: string; attempts: number };

/** Upload with retries; throws RemoteError / SvcError for a final failure. */
export async function uploadWithRetry(plan: UploadPlan): Promise<UploadOutcome> {
  const path =
    plan.preview === null
      ? releaseRoutes.releases.replace(':id', encodeURIComponent(plan.project))
      : releaseRoutes.previewReleases.replace(':id', encodeURIComponent(plan.project)).replace(':number', String(plan.preview));
  const url = `${plan.server}${path}?wait=true`;
  let failure: FailedAttempt | undefined;
  return retryLoop<UploadOutcome>(
    async (attempt) => {
      let finalError: Error;
      try {
        const authorization = await plan.authorization();
        const reply = await httpCall({
          method: 'POST',
          url,
          headers: {
            authorization,
            'content-type': UPLOAD_MEDIA_TYPE,
            accept: 'application/json',
            'user-agent': 'svc-action',
            [DIGEST_HEADER]: plan.digest,
            [IDEMPOTENCY_HEADER]: plan.idempotencyKey,
            [COMMIT_SHA_HEADER]: plan.sha,
            [REPOSITORY_ID_HEADER]: plan.repositoryId,
          },
          body: plan.bytes,
          timeoutMs: plan.timeoutMs,
        });
        if (reply.status === 200 || reply.status === 201)
          return { kind: 'done', value: { kind: 'released', response: parseUploadResponse(reply), attempts: attempt } };
        const remote = remoteErrorOf(reply);
        if (remote.code === SUPERSEDED_CODE || remote.code === PREVIEW_SUPERSEDED_CODE)
          return { kind: 'done', value: { kind: 'superseded', message: remote.message, attempts: attempt } };
        failure = { kind: 'response', status: reply.status, code: remote.code, retryAfter: reply.header('retry-after') ?? undefined };
        finalError = remote;
      } catch (error) {
        if (isSvcError(error)) {
          // Our own failures (the OIDC token request): retry only the transient ones.
          const status = typeof error.details?.status === 'number' ? error.details.status : 503;
          failure = { kind: 'response', status, code: error.kind === 'retryable' ? error.code : null, retryAfter: undefined };
        } else if (error instanceof RemoteError) {
          throw error;
        } else {
          failure = { kind: 'network', message: (error as Error).message };
        }
        finalError = error as Error;
      }
      if (!shouldRetry(failure)) throw finalError;
      return { kind: 'retry', error: finalError, retryAfter: failure.kind === 'response' ? failure.retryAfter : undefined };
    },
    {
      // svc's retry policy, jittered so many workflows failing together do not come back together.
      policy: uploadRetryPolicy(plan.retryBaseMs),
      maxAttempts: plan.maxAttempts,
      ...(plan.sleep ? { sleep: plan.sleep } : {}),
      ...(plan.random ? { random: plan.random } : {}),
      onRetry: ({ attempt, delayMs }) =>
        plan.log(
          `Attempt ${attempt} failed (${failure?.kind === 'network' ? failure.message : `${failure?.status}${failure?.code ? ` ${failure.code}` : ''}`}); retrying in ${Math.round(delayMs / 100) / 10} s with the same idempotency key.`,
        ),
    },
  );
}

function parseUploadResponse(reply: HttpReply): UploadResponse {
  let parsed;
  try {
    parsed = uploadResponseSchema.safeParse(JSON.parse(reply.text));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw new RemoteError('SVC_INTERNAL', `The control plane answered ${reply.status} with an unexpected body.`, reply.status);
  return parsed.data;
}

/** The `{ error: { code, message } }` of a failed reply (or a generic one for non-JSON bodies). */
function remoteErrorOf(reply: HttpReply): RemoteError {
  try {
    const body = JSON.parse(reply.text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') return new RemoteError(body.error.code, String(body.error.message ?? body.error.code), reply.status);
  } catch {
    // not JSON (a proxy's error page)
  }
  return new RemoteError(`HTTP_${reply.status}`, `The control plane answered ${reply.status}: ${reply.text.slice(0, 200)}`, reply.status);
}
