// The one HTTP call of `svc deploy`: POST the artifact bytes (streamed, so bytes sent can be shown)
// with the digest and idempotency key, and validate the answer against the releases contract.
import { DIGEST_HEADER, IDEMPOTENCY_HEADER, UPLOAD_MEDIA_TYPE, releaseRoutes, uploadResponseSchema, type UploadResponse } from '../src/releases/contract.js';
import { SvcError } from '../src/core/errors.js';
import { errorFromResponse } from './http-request.js';

/** Everything one upload needs; `fetch` is the CLI's injectable fetch. */
export interface UploadRequest {
  server: string;
  token: string;
  projectId: string;
  bytes: Uint8Array;
  digest: string;
  idempotencyKey: string;
  fetch: typeof fetch;
  /** Whole-request bound: the server answers when the release transaction ended. */
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
  url.searchParams.set('wait', 'true');
  let offset = 0;
  const total = request.bytes.length;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= total) {
        controller.close();
        return;
      }
      const chunk = request.bytes.subarray(offset, Math.min(total, offset + CHUNK_BYTES));
      offset += chunk.length;
      controller.enqueue(chunk);
      request.onProgress?.(offset, total);
    },
  });
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await request.fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'user-agent': 'svc-cli',
        authorization: `Bearer ${request.token}`,
        'content-type': UPLOAD_MEDIA_TYPE,
        'content-length': String(total),
        [DIGEST_HEADER]: request.digest,
        [IDEMPOTENCY_HEADER]: request.idempotencyKey,
      },
      body,
      duplex: 'half',
      redirect: 'manual',
      signal,
    } as RequestInit);
  } catch (error) {
    throw transportError(error, url);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The status line arrived but the body was cut: the outcome is still unknown.
    throw transportError(error, url);
  }
  if (!response.ok) throw errorFromResponse(response.status, text, response.headers.get('retry-after'));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_BAD_RESPONSE', `POST ${url.pathname} returned ${response.status} with a body that is not JSON`, { details: { status: response.status } });
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
  const name = (error as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return new SvcError('SVC_TIMEOUT', `Upload to ${url.origin} timed out`, { cause: error });
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new SvcError('SVC_NETWORK', `Connection to ${url.origin} failed during the upload (${reason})`, { cause: error });
}
