// Messages between the control plane and the decoder thread that stages uploaded artifacts.
import type { MessagePort } from 'node:worker_threads';
import { SvcError, type ErrorCode } from '../core/errors.js';
import type { DecodeOptions } from './decode-artifact.js';
import type { StagedArtifact } from './stage-artifact.js';

/** One upload: its own port (body in, verdict out), where to stage, limits and expected digest. */
export interface StageJob {
  port: MessagePort;
  dir: string;
  options: DecodeOptions;
}

/** An error crossing the thread boundary: an SvcError's code, message and details, or a plain message. */
export interface WireError {
  code: ErrorCode | null;
  message: string;
  details: Record<string, unknown> | null;
  /** The decoder failed with the sender's own failure (the caller rethrows the original error). */
  fromSource: boolean;
}

export type StageToWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'end' } | { type: 'error'; error: WireError };

export type StageToMain = { type: 'ack' } | { type: 'done'; staged: StagedArtifact } | { type: 'failed'; error: WireError };

/** An error as it crosses the thread boundary. */
export function toWireError(error: unknown, fromSource: boolean): WireError {
  if (error instanceof SvcError) return { code: error.code, message: error.message, details: error.details ?? null, fromSource };
  return { code: null, message: error instanceof Error ? error.message : String(error), details: null, fromSource };
}

/** The error again on the other side: an SvcError of the same code, message and details, or a plain Error. */
export function fromWireError(wire: WireError): Error {
  return wire.code ? new SvcError(wire.code, wire.message, wire.details ? { details: wire.details } : undefined) : new Error(wire.message);
}
