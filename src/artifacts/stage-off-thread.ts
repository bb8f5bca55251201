// stageArtifact in a decoder thread: inflating, hashing, base64 verification and file writes of an
// upload of any size (or a decompression bomb) never run on the control plane's event loop, which only
// reads the body and forwards it, a few chunks ahead of the decoder at most. One decoder thread serves
// the process (uploads run side by side in it); it starts on first use, or early with
// warmArtifactDecoder, never keeps the process alive, and stops after a minute without a job: a thread
// is a V8 isolate of its own (~18 MiB resident), which an idle control plane should not hold.
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MessageChannel, type Worker } from 'node:worker_threads';
import { SvcError } from '../core/errors.js';
import { fromWireError, siblingModule, startModuleWorker, toWireError } from '../core/module-worker.js';
import type { DecodeOptions } from './decode-artifact.js';
import type { StagedArtifact } from './stage-artifact.js';
import type { StageJob, StageToMain, StageToWorker } from './stage-protocol.js';

/** Forwarded chunks the decoder has not taken yet; with PIECE_BYTES this bounds what waits in between. */
const WINDOW = 4;
/** Larger chunks (a body handed over whole) are forwarded in pieces of at most this size. */
const PIECE_BYTES = 256 * 1024;
// A small young generation: the decoder makes short-lived garbage (buffers per chunk) and should
// collect it often rather than let it pile up to the default semi-space size.
const LIMITS = { maxYoungGenerationSizeMb: 4 };
/** A decoder this long without a job is stopped; the next upload starts another (tens of milliseconds). */
const IDLE_STOP_MS = 60_000;

interface Decoder {
  worker: Worker;
  /** Jobs in flight: told when the thread dies under them. */
  lost: Set<(reason: string) => void>;
  /** Stops the thread once it has had no job for IDLE_STOP_MS. */
  idle?: NodeJS.Timeout;
}

let decoder: Decoder | undefined;

/** The decoder thread (module stage-worker beside this one). */
function startDecoder(): Decoder {
  const worker = startModuleWorker(siblingModule(import.meta.url, 'stage-worker'), { resourceLimits: LIMITS });
  worker.unref();
  const started: Decoder = { worker, lost: new Set() };
  const die = (reason: string): void => {
    if (decoder === started) decoder = undefined;
    for (const lost of [...started.lost]) lost(reason);
  };
  worker.once('error', (error) => die(error.message));
  worker.once('exit', (code) => die(`exit ${code}`));
  stopWhenIdle(started);
  return started;
}

/** Arm the idle stop of a decoder whose last job ended (or that has had none yet). */
function stopWhenIdle(current: Decoder): void {
  clearTimeout(current.idle);
  if (current.lost.size > 0) return;
  current.idle = setTimeout(() => {
    if (current.lost.size > 0) return;
    if (decoder === current) decoder = undefined;
    void current.worker.terminate();
  }, IDLE_STOP_MS);
  current.idle.unref();
}

/** Start the decoder thread now, so the next upload does not wait for it (it stops again when idle). */
export function warmArtifactDecoder(): void {
  decoder ??= startDecoder();
}

/**
 * Same contract as stageArtifact (result, error codes, precedence of size limits, a rejected artifact
 * leaves nothing) with the work done in the decoder thread. An error of `source` itself is rethrown as is.
 */
export function stageArtifactOffThread(source: AsyncIterable<Uint8Array>, dir: string, options: DecodeOptions = {}): Promise<StagedArtifact> {
  const current = (decoder ??= startDecoder());
  const target = resolve(dir);
  const { port1: port, port2 } = new MessageChannel();
  let settled = false;
  let sourceFailure: { error: unknown } | undefined;
  let inFlight = 0;
  let credit: (() => void) | undefined;
  const wakeSender = (): void => {
    const wake = credit;
    credit = undefined;
    wake?.();
  };

  return new Promise<StagedArtifact>((resolvePromise, reject) => {
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      current.lost.delete(lost);
      stopWhenIdle(current);
      port.close();
      wakeSender();
      outcome();
    };
    // The thread died under this job (out of memory, a bug): its staging directory may be half written.
    const lost = (reason: string): void => {
      if (settled) return;
      void rm(target, { recursive: true, force: true }).catch(() => undefined);
      settle(() => reject(new SvcError('SVC_INTERNAL', `The artifact decoder stopped without an answer (${reason}); nothing was staged.`)));
    };
    current.lost.add(lost);
    clearTimeout(current.idle);
    port.on('message', (message: StageToMain) => {
      if (message.type === 'ack') {
        inFlight--;
        wakeSender();
      } else if (message.type === 'done') settle(() => resolvePromise(message.staged));
      else settle(() => reject(message.fromSource && sourceFailure ? sourceFailure.error : fromWireError(message.error)));
    });
    const job: StageJob = { port: port2, dir: target, options };
    current.worker.postMessage(job, [port2]);

    const send = (message: StageToWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
    // Not awaited by the verdict: a decoder that stopped early answers at once, even if the sender stalls.
    void (async () => {
      try {
        for await (const chunk of source) {
          for (let at = 0; at < chunk.length && !settled; at += PIECE_BYTES) {
            while (inFlight >= WINDOW && !settled) await new Promise<void>((wake) => (credit = wake));
            if (settled) break;
            // A copy with its own buffer, transferred (Buffer#slice would be a view of a shared pool).
            const piece = new Uint8Array(chunk.subarray(at, at + PIECE_BYTES));
            inFlight++;
            send({ type: 'chunk', bytes: piece }, [piece.buffer]);
          }
          if (settled) return;
        }
        if (!settled) send({ type: 'end' });
      } catch (error) {
        sourceFailure = { error };
        if (!settled) send({ type: 'error', error: toWireError(error) });
      }
    })();
  });
}
