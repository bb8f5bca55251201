// Pure verification of an exported journal: contiguous sequences, hash links, monotone commit times,
// AEAD authentication of every entry, and the final digest named by head.json. No disk, no clock.
import { SvcError } from '../core/errors.js';
import { openEntry, parseEntryLine, entryDigest, type EntryPayload } from './journal-entry.js';

/** What the verifier checks entries against (from the authenticated epoch.json and head.json). */
export interface ChainContext {
  readonly epochId: string;
  readonly entryKey: Buffer;
  /** Digest entry 1 must link to. */
  readonly genesis: string;
  /** Time of the base snapshot; entry times never go below it. */
  readonly baseTime: number;
  /** Last sequence the repository claims; every entry up to it must be present. */
  readonly exportedThrough: number;
  /** Digest of entry `exportedThrough` (the genesis digest when it is 0). */
  readonly headDigest: string;
}

/** An authenticated, decrypted entry. */
export interface VerifiedEntry {
  readonly seq: number;
  readonly time: number;
  readonly digest: string;
  readonly payload: EntryPayload;
}

/** Incremental verifier: feed lines in file order with push(), then call finish(). */
export interface ChainVerifier {
  /** Verify the next line; throws SVC_RECOVERY_TAMPERED / _GAP / _CONFLICT naming the sequence. */
  push(line: string): VerifiedEntry;
  /** Check that the journal reached `exportedThrough` and ends at `headDigest`. */
  finish(): void;
  /** Last verified sequence (0 before any). */
  readonly last: number;
}

/** Build a verifier for one epoch's journal. */
export function createChainVerifier(context: ChainContext): ChainVerifier {
  let last = 0;
  let lastDigest = context.genesis;
  let lastTime = context.baseTime;
  const fail = (code: 'SVC_RECOVERY_TAMPERED' | 'SVC_RECOVERY_GAP' | 'SVC_RECOVERY_CONFLICT', sequence: number, why: string): never => {
    throw new SvcError(code, `Journal entry ${sequence}: ${why}.`, { details: { sequence } });
  };
  return {
    get last() {
      return last;
    },
    push(line) {
      const expected = last + 1;
      if (expected > context.exportedThrough) fail('SVC_RECOVERY_CONFLICT', expected, 'beyond the exported head');
      const envelope = parseEntryLine(line);
      if (envelope === null) return fail('SVC_RECOVERY_TAMPERED', expected, 'not a canonical entry');
      if (envelope.seq > expected) fail('SVC_RECOVERY_GAP', expected, `missing (next entry present is ${envelope.seq})`);
      if (envelope.seq < expected) fail('SVC_RECOVERY_CONFLICT', envelope.seq, 'duplicate or out of order');
      if (envelope.epoch !== context.epochId) fail('SVC_RECOVERY_TAMPERED', expected, 'belongs to another epoch');
      if (envelope.prev !== lastDigest) fail('SVC_RECOVERY_TAMPERED', expected, 'does not link to the previous entry');
      if (envelope.time < lastTime) fail('SVC_RECOVERY_TAMPERED', expected, 'commit time goes backwards');
      const payload = openEntry(envelope, context.entryKey);
      if (payload === null) return fail('SVC_RECOVERY_TAMPERED', expected, 'failed authentication');
      last = expected;
      lastDigest = entryDigest(line);
      lastTime = envelope.time;
      return { seq: expected, time: envelope.time, digest: lastDigest, payload };
    },
    finish() {
      if (last < context.exportedThrough) fail('SVC_RECOVERY_GAP', last + 1, 'missing from the repository');
      if (lastDigest !== context.headDigest) fail('SVC_RECOVERY_TAMPERED', last, 'does not match the digest in head.json');
    },
  };
}

/** A restore target: a sequence, or the latest commit at or before a time. */
export type RestoreTarget = { readonly throughSequence: number } | { readonly asOf: number };

/** Check a target against what the repository holds; throws _SEQUENCE_UNAVAILABLE or _BEFORE_BASE. */
export function checkTarget(target: RestoreTarget, exportedThrough: number, baseTime: number): void {
  if ('throughSequence' in target) {
    if (target.throughSequence > exportedThrough) {
      throw new SvcError('SVC_RECOVERY_SEQUENCE_UNAVAILABLE', `Sequence ${target.throughSequence} is not exported (exported through ${exportedThrough}).`, {
        details: { sequence: target.throughSequence, exportedThrough },
      });
    }
  } else if (target.asOf < baseTime) {
    throw new SvcError(
      'SVC_RECOVERY_BEFORE_BASE',
      `${new Date(target.asOf).toISOString()} is before the base snapshot (${new Date(baseTime).toISOString()}).`,
      {
        details: { asOf: target.asOf, baseTime },
      },
    );
  }
}

/** Whether a verified entry belongs to the restored state (times are monotone, so this is a prefix). */
export function entryWithinTarget(target: RestoreTarget, entry: { seq: number; time: number }): boolean {
  return 'throughSequence' in target ? entry.seq <= target.throughSequence : entry.time <= target.asOf;
}
