// Reads a JSON request body with a byte cap, without buffering more than the cap.
import { RuntimeError } from '../errors.js';

/** Default cap on JSON request bodies (256 KiB). */
export const MAX_BODY_BYTES = 256 * 1024;

/** Parse the body as JSON (an empty body is `{}`); SVC_RUNTIME_PAYLOAD_TOO_LARGE / _MALFORMED_JSON otherwise. */
export async function readJsonBody(request: Request, maxBytes: number = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new RuntimeError('SVC_RUNTIME_PAYLOAD_TOO_LARGE', `The body exceeds ${maxBytes} bytes.`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new RuntimeError('SVC_RUNTIME_PAYLOAD_TOO_LARGE', `The body exceeds ${maxBytes} bytes.`);
      }
      chunks.push(value);
    }
  }
  // Small bodies arrive in one chunk: decode it in place instead of copying it through Buffer.concat.
  const bytes = chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks);
  const text = bytes.toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RuntimeError('SVC_RUNTIME_MALFORMED_JSON', 'The body is not valid JSON.');
  }
}
