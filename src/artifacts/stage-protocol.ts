// Messages between the control plane and the decoder thread that stages uploaded artifacts.
import type { MessagePort } from 'node:worker_threads';
import type { WireError } from '../core/module-worker.js';
import type { DecodeOptions } from './decode-artifact.js';
import type { StagedArtifact } from './stage-artifact.js';

/** One upload: its own port (body in, verdict out), where to stage, limits and expected digest. */
export interface StageJob {
  port: MessagePort;
  dir: string;
  options: DecodeOptions;
}

export type StageToWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'end' } | { type: 'error'; error: WireError };

/** `fromSource`: the decoder failed with the sender's own failure (the caller rethrows the original). */
export type StageToMain = { type: 'ack' } | { type: 'done'; staged: StagedArtifact } | { type: 'failed'; error: WireError; fromSource: boolean };
