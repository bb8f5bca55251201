// The state seal: an order-independent multiset hash of every journaled row (sum of SHA-256 row
// digests mod 2^256), bound to the epoch, sequence, previous entry digest and schema hash. It lets
// attach detect writes made behind recovery's back and lets restore prove the replay is exact.
import { hash } from 'node:crypto';
import { RECOVERY_FORMAT } from './recovery-keys.js';
import type { EncodedValue } from './value-codec.js';

const MOD = 1n << 256n;

/** Digest of one row (table name + canonical values) as a 256-bit integer. */
export function rowDigest(table: string, row: readonly EncodedValue[]): bigint {
  return rowDigestOfJson(table, JSON.stringify(row));
}

/** rowDigest from the row's JSON text, for callers that already serialised it (the text is the same). */
export function rowDigestOfJson(table: string, rowJson: string): bigint {
  return BigInt(`0x${hash('sha256', `[${JSON.stringify(table)},${rowJson}]`, 'hex')}`);
}

/** Add (sign 1) or remove (sign -1) a row digest from the accumulator. */
export function accumulate(accumulator: bigint, digest: bigint, sign: 1 | -1): bigint {
  const next = sign === 1 ? accumulator + digest : accumulator - digest;
  return ((next % MOD) + MOD) % MOD;
}

/** Accumulator as 64 hex characters. */
export function accumulatorHex(accumulator: bigint): string {
  return accumulator.toString(16).padStart(64, '0');
}

/** What one seal binds. */
export interface SealInput {
  readonly epochId: string;
  readonly sequence: number;
  /** Digest of the previous entry (the genesis digest for sequence 1; empty for the base seal). */
  readonly previous: string;
  readonly schemaHash: string;
  /** Accumulator after the commit, hex. */
  readonly accumulator: string;
}

/** Compute the seal (hex SHA-256) of a state. */
export function computeSeal(input: SealInput): string {
  return hash(
    'sha256',
    [RECOVERY_FORMAT, 'seal', input.epochId, String(input.sequence), input.previous, input.schemaHash, input.accumulator].join('\n'),
    'hex',
  );
}

/** Digest entry 1 links to: binds the chain to the epoch and the base state's seal. */
export function genesisDigest(epochId: string, baseSeal: string): string {
  return hash('sha256', [RECOVERY_FORMAT, 'genesis', epochId, baseSeal].join('\n'), 'hex');
}
