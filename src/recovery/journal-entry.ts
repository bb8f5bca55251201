// Journal entry codec. One entry is one line of canonical JSON: a clear header (format version, epoch,
// sequence, commit time, previous digest) and the row changes sealed with AES-256-GCM under a fresh
// 96-bit nonce, with the header as additional data. The entry digest is SHA-256 of the line.
import { createCipheriv, createDecipheriv, hash, randomFillSync } from 'node:crypto';
import { z } from 'zod';
import { RECOVERY_FORMAT } from './recovery-keys.js';
import type { EncodedValue } from './value-codec.js';

/** Row changes of one table in one transaction: deletes (keys) are applied before upserts (full rows). */
export interface TableChanges {
  /** Table name. */
  readonly t: string;
  /** Column names, in the order of every upsert row. */
  readonly c: readonly string[];
  /** Primary-key values of deleted rows. */
  readonly d: readonly (readonly EncodedValue[])[];
  /** Final images of inserted or updated rows. */
  readonly u: readonly (readonly EncodedValue[])[];
}

/** The encrypted part of an entry. */
export interface EntryPayload {
  /** State seal after this commit. */
  readonly seal: string;
  /** State accumulator after this commit (hex). */
  readonly acc: string;
  readonly changes: readonly TableChanges[];
}

/** The clear header of an entry (authenticated as AAD). */
export interface EntryHeader {
  readonly epoch: string;
  readonly seq: number;
  readonly time: number;
  readonly prev: string;
}

/** A parsed entry line. */
export interface EntryEnvelope extends EntryHeader {
  readonly v: 1;
  readonly nonce: string;
  readonly data: string;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const envelopeSchema = z.strictObject({
  v: z.literal(1),
  epoch: z.string().min(1).max(100),
  seq: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  time: z.number().int().nonnegative(),
  prev: hex64,
  nonce: z.string().length(16),
  data: z.string().min(24),
});
const valueSchema = z.union([z.null(), z.number(), z.string(), z.strictObject({ f: z.union([z.number(), z.string()]) }), z.strictObject({ b: z.string() })]);
const payloadSchema = z.strictObject({
  seal: hex64,
  acc: hex64,
  changes: z.array(
    z.strictObject({ t: z.string().min(1), c: z.array(z.string().min(1)).min(1), d: z.array(z.array(valueSchema)), u: z.array(z.array(valueSchema)) }),
  ),
});

/** Additional authenticated data of an entry: binds format, epoch, sequence, time and previous digest. */
export function entryAad(header: EntryHeader): Buffer {
  return Buffer.from([RECOVERY_FORMAT, 'entry', header.epoch, String(header.seq), String(header.time), header.prev].join('\n'));
}

/** Serialize an envelope in its one canonical form (fixed key order). */
export function envelopeLine(envelope: EntryEnvelope): string {
  const { v, epoch, seq, time, prev, nonce, data } = envelope;
  return JSON.stringify({ v, epoch, seq, time, prev, nonce, data });
}

/** SHA-256 (hex) of an entry line. */
export function entryDigest(line: string): string {
  return hash('sha256', line, 'hex');
}

// Random nonces come from a pool refilled 4 KiB at a time (one CSPRNG call per 341 entries).
const pool = Buffer.alloc(12 * 341);
let poolOffset = pool.length;

function randomNonce(): Buffer {
  if (poolOffset + 12 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const nonce = Buffer.from(pool.subarray(poolOffset, poolOffset + 12));
  poolOffset += 12;
  return nonce;
}

/** Encrypt a payload (already JSON) under the entry key with a fresh random 96-bit nonce; returns the line and its digest. */
export function sealEntry(header: EntryHeader, payloadJson: string, key: Buffer): { line: string; digest: string } {
  const nonce = randomNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(entryAad(header));
  const data = Buffer.concat([cipher.update(payloadJson, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const line = envelopeLine({ v: 1, ...header, nonce: nonce.toString('base64'), data: data.toString('base64') });
  return { line, digest: entryDigest(line) };
}

/** Parse a line; null when it is not a canonical envelope (any edit to the clear part shows up here). */
export function parseEntryLine(line: string): EntryEnvelope | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = envelopeSchema.safeParse(raw);
  if (!parsed.success) return null;
  // Base64 must be canonical too: otherwise unused padding bits could change without changing the bytes.
  if (!isCanonicalBase64(parsed.data.nonce) || !isCanonicalBase64(parsed.data.data)) return null;
  return envelopeLine(parsed.data) === line ? parsed.data : null;
}

function isCanonicalBase64(text: string): boolean {
  return Buffer.from(text, 'base64').toString('base64') === text;
}

/** Decrypt and validate the payload; null when authentication fails or the payload is malformed. */
export function openEntry(envelope: EntryEnvelope, key: Buffer): EntryPayload | null {
  const data = Buffer.from(envelope.data, 'base64');
  if (data.length < 17) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.nonce, 'base64'));
    decipher.setAAD(entryAad(envelope));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
    const parsed = payloadSchema.safeParse(JSON.parse(plain.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
