// The decoder thread of stageArtifactOffThread: runs stageArtifact (inflate, hash, base64 checks, file
// writes) on bytes the control plane forwards, so none of that CPU work runs on its event loop. Each
// upload is a job with a port of its own; jobs run side by side. Each chunk is acknowledged once the
// decoder has taken it, and the sender keeps only a few unacknowledged chunks in flight, so memory stays
// bounded by the decoder's pace, as it was on the main thread.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { stageArtifact } from './stage-artifact.js';
import { fromWireError, toWireError, yieldToEventLoop } from '../core/module-worker.js';
import type { StageJob, StageToMain, StageToWorker } from './stage-protocol.js';

yieldToEventLoop();
parentPort!.on('message', (job: StageJob) => runJob(job));

function runJob({ port, dir, options }: StageJob): void {
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: { error: Error } | undefined;
  let wake: (() => void) | undefined;
  const post = (message: StageToMain): void => port.postMessage(message);

  port.on('message', (message: StageToWorker) => {
    if (message.type === 'chunk') queue.push(message.bytes);
    else if (message.type === 'end') ended = true;
    else failure = { error: fromWireError(message.error) }; // ranked by the decoder as the original would be
    wake?.();
  });

  /** The body as the decoder sees it: forwarded chunks, then the end or the sender's failure. */
  async function* forwarded(): AsyncIterable<Uint8Array> {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        post({ type: 'ack' });
        yield chunk;
        continue;
      }
      if (failure) throw failure.error;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }

  stageArtifact(forwarded(), dir, options)
    .then((staged) => post({ type: 'done', staged }))
    .catch((error: unknown) => post({ type: 'failed', error: toWireError(error), fromSource: failure !== undefined && error === failure.error }))
    .finally(() => closePort(port, queue));
}

/** Done with a job: chunks still queued or in transit are dropped with the port. */
function closePort(port: MessagePort, queue: Uint8Array[]): void {
  queue.length = 0;
  port.close();
}
