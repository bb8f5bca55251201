// The one HTTP call of `svc deploy`: POST the artifact bytes (streamed, so bytes sent can be shown)
// with the digest and idempotency key through svc's HTTP client, and validate the answer against the
// releases contract. Not retried here: deploy-release.ts keeps the idempotency key for a rerun. It asks
// the server to answer once the candidate exists (wait=false), so the steps can be followed live.
import { Readable } from 'node:stream';
import { DIGEST_HEADER, IDEMPOTENCY_HEADER, UPLOAD_MEDIA_TYPE, releaseRoutes, uploadResponseSchema, type UploadResponse } from '../src/releases/contract.js';
import { SvcError } from '../src/core/errors.js';
import { HttpFailure, type HttpAnswer, type HttpClient } from '../src/core/http/http-client.js';
import { errorFromResponse, isOk } from './http-request.js';

/** Everything one upload needs; `http` is the CLI's injectable client. */
export interface UploadRequest {
  server: string;
  token: string;
  projectId: string;
  bytes: Uint8Array;
  digest: string;
  idempotencyKey: string;
  http: HttpClient;
  /** Whole-request bound: the server answers once the upload is verified and the candidate exists. */
  timeoutMs: number;
  /** Called with the bytes handed to the connection so far. */
  onProgress?: (sent: number, total: number) => void;
}

/** The validated upload answer and its HTTP status (201 created, 200 replayed, 202 still running). */
export interface UploadResult {
  status: number;
  body: UploadResponse;
}

const CHUNK_BYTES = 64 * 1024;

/** Upload an artifact; throws SvcError (SVC_NETWORK / SVC_TIMEOUT / SVC_BAD_RESPONSE / the server's code). */
export async function uploadArtifact(request: UploadRequest): Promise<UploadResult> {
  const url = new URL(releaseRoutes.releases.replace(':id', encodeURIComponent(request.projectId)), `${request.server}/`);
  url.searchParams.set('wait', 'false');
  const total = request.bytes.length;
  const chunks = function* (): Generator<Uint8Array> {
    for (let offset = 0; offset < total;) {
      const chunk = request.bytes.subarray(offset, Math.min(total, offset + CHUNK_BYTES));
      offset += chunk.length;
      yield chunk;
      request.onProgress?.(offset, total);
    }
  };
  let response: HttpAnswer;
  try {
    response = await request.http.send({
      method: 'POST',
      url,
      headers: {
        accept: 'application/json',
        'user-agent': 'svc-cli',
        authorization: `Bearer ${request.token}`,
        'content-type': UPLOAD_MEDIA_TYPE,
        'content-length': String(total),
        [DIGEST_HEADER]: request.digest,
        [IDEMPOTENCY_HEADER]: request.idempotencyKey,
      },
      body: Readable.from(chunks(), { objectMode: false }),
      timeoutMs: request.timeoutMs,
    });
  } catch (error) {
    // No answer, or the status line arrived but the body was cut: the outcome is still unknown.
    throw transportError(error, url);
  }
  const text = response.text();
  if (!isOk(response.status)) throw errorFromResponse(response.status, text, response.header('retry-after'));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_BAD_RESPONSE', `POST ${url.pathname} returned ${response.status} with a body that is not JSON`, {
      details: { status: response.status },
    });
  }
  const parsed = uploadResponseSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SvcError('SVC_BAD_RESPONSE', `POST ${url.pathname}: unexpected response (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`, {
      details: { status: response.status },
    });
  }
  return { status: response.status, body: parsed.data };
}

function transportError(error: unknown, url: URL): SvcError {
  if (error instanceof HttpFailure && (error.reason === 'timeout' || error.reason === 'aborted'))
    return new SvcError('SVC_TIMEOUT', `Upload to ${url.origin} timed out`, { cause: error });
  const reason = error instanceof HttpFailure ? error.detail : (error as Error).message;
  return new SvcError('SVC_NETWORK', `Connection to ${url.origin} failed during the upload (${reason})`, { cause: error });
}
