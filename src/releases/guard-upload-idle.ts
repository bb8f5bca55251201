// A client that starts an upload and then stops sending would otherwise keep the project lock (taken
// before the body is read) forever. Each wait for the next chunk is bounded instead. Only time spent
// waiting for the client counts: while the consumer is busy (hashing, inflating, waiting for the lock)
// no timer runs, so a slow server never blames the client.
import { SvcError } from '../core/errors.js';

const STALLED = Symbol('stalled');

/** Pass an upload body through, failing with SVC_UPLOAD_STALLED when no chunk arrives for `idleMs`. */
export async function* guardUploadIdle(body: AsyncIterable<Uint8Array>, idleMs: number): AsyncGenerator<Uint8Array, void, undefined> {
  const iterator = body[Symbol.asyncIterator]();
  let stalled = false;
  try {
    for (;;) {
      const next = await nextWithin(iterator, idleMs);
      if (next === STALLED) {
        stalled = true;
        throw new SvcError('SVC_UPLOAD_STALLED', `No upload bytes arrived for ${idleMs} ms; the upload was aborted.`, { details: { idleTimeoutMs: idleMs } });
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Ending early for any other reason closes the body, as a for-await loop over it would. A stalled
    // body is left open: closing it would close the connection before the 408 could be written.
    if (!stalled) await iterator.return?.();
  }
}

/** The next chunk, or STALLED after `ms`. The pending read stays subscribed, so its later failure is handled. */
function nextWithin<T>(iterator: AsyncIterator<T>, ms: number): Promise<IteratorResult<T> | typeof STALLED> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof STALLED>((resolve) => {
    timer = setTimeout(() => resolve(STALLED), ms);
  });
  return Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
}
