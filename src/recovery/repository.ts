// The recovery repository on disk (docs/recovery-format.md): epoch.json and head.json (HMAC-signed),
// base/snapshot.svcb (AES-256-GCM), journal/<first>-<last>.svcj segments of entry lines. Every file
// is written with temp file + fsync + rename, so a crash leaves the old or the new file, never half.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';
import { macOf, RECOVERY_FORMAT, sameHex } from './recovery-keys.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** epoch.json: the fixed facts of one epoch and its base snapshot. */
export const epochDocumentSchema = z.strictObject({
  format: z.literal(RECOVERY_FORMAT),
  epochId: z.string().min(1).max(100),
  createdAt: z.number().int().nonnegative(),
  keyCheck: z.string().regex(/^[0-9a-f]{32}$/),
  schemaHash: hex64,
  baseAccumulator: hex64,
  baseSeal: hex64,
  genesis: hex64,
  base: z.strictObject({ file: z.literal('base/snapshot.svcb'), sha256: hex64, bytes: z.number().int().nonnegative() }),
});
export type EpochDocument = z.infer<typeof epochDocumentSchema>;

/** head.json: how far the journal is exported and the digest of that entry. */
export const headDocumentSchema = z.strictObject({
  format: z.literal(RECOVERY_FORMAT),
  epochId: z.string().min(1).max(100),
  exportedThrough: z.number().int().nonnegative(),
  headDigest: hex64,
  updatedAt: z.number().int().nonnegative(),
});

/** A journal segment file and the sequences its name claims. */
export interface SegmentFile {
  readonly name: string;
  readonly first: number;
  readonly last: number;
}

const SEGMENT_NAME = /^(\d{16})-(\d{16})\.svcj$/;
const pad = (n: number): string => String(n).padStart(16, '0');

/** Paths of a repository. */
export function repositoryPaths(directory: string): { epoch: string; head: string; base: string; journal: string } {
  return {
    epoch: join(directory, 'epoch.json'),
    head: join(directory, 'head.json'),
    base: join(directory, 'base', 'snapshot.svcb'),
    journal: join(directory, 'journal'),
  };
}

/** JSON with object keys sorted recursively: the bytes a document's MAC covers. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/** Signed JSON text of a metadata document: its fields plus `mac` = HMAC over the canonical JSON. */
export function signDocument(document: object, metaKey: Buffer): string {
  return `${JSON.stringify({ ...document, mac: macOf(metaKey, canonicalJson(document)) }, null, 2)}\n`;
}

/** Read a signed document without verifying it (the MAC key depends on the epoch id inside). */
export async function readSignedDocument<T extends object>(path: string, schema: z.ZodType<T>): Promise<{ document: T; mac: string } | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SvcError('SVC_RECOVERY_REPOSITORY_INVALID', `${path} is not JSON.`, { details: { file: path } });
  }
  const { mac, ...rest } = (raw ?? {}) as { mac?: unknown };
  const parsed = schema.safeParse(rest);
  if (!parsed.success || typeof mac !== 'string') throw new SvcError('SVC_RECOVERY_REPOSITORY_INVALID', `${path} is malformed.`, { details: { file: path } });
  return { document: parsed.data, mac };
}

/** Whether a document's MAC verifies under the meta key. */
export function documentVerifies(document: object, mac: string, metaKey: Buffer): boolean {
  return sameHex(mac, macOf(metaKey, canonicalJson(document)));
}

/** Write epoch.json or head.json atomically. */
export async function writeSignedDocument(path: string, document: object, metaKey: Buffer): Promise<void> {
  await atomicWriteFile(path, signDocument(document, metaKey), { mode: 0o600, mkdirs: true });
}

/** AAD of the base snapshot. */
function baseAad(epochId: string): Buffer {
  return Buffer.from([RECOVERY_FORMAT, 'base', epochId].join('\n'));
}

/** Encrypt a serialized database: nonce (12) ‖ ciphertext ‖ tag (16). */
export function encryptBase(plain: Buffer, key: Buffer, epochId: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(baseAad(epochId));
  return Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** Decrypt the base; null when authentication fails. */
export function decryptBase(sealed: Buffer, key: Buffer, epochId: string): Buffer | null {
  if (sealed.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    decipher.setAAD(baseAad(epochId));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  } catch {
    return null;
  }
}

/** SHA-256 hex of bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Write the encrypted base snapshot atomically. */
export async function writeBase(directory: string, sealed: Buffer): Promise<void> {
  await atomicWriteFile(repositoryPaths(directory).base, sealed, { mode: 0o600, mkdirs: true });
}

/** File name of the segment holding entries `first`..`last`. */
export function segmentName(first: number, last: number): string {
  return `${pad(first)}-${pad(last)}.svcj`;
}

/** Write one journal segment (entry lines `first`..`last`) atomically. */
export async function writeSegment(directory: string, first: number, last: number, lines: readonly string[]): Promise<void> {
  await atomicWriteFile(join(repositoryPaths(directory).journal, segmentName(first, last)), `${lines.join('\n')}\n`, { mode: 0o600, mkdirs: true });
}

/**
 * The segments that make up the exported journal: those ending at or before the head and, of several
 * starting at the same sequence (an appended segment and the shorter one it replaced), the longest.
 * Anything else is an unpublished leftover of an interrupted export.
 */
export function publishedSegments(segments: readonly SegmentFile[], exportedThrough: number): SegmentFile[] {
  const byFirst = new Map<number, SegmentFile>();
  for (const segment of segments) {
    if (segment.last > exportedThrough || segment.last < segment.first) continue;
    const current = byFirst.get(segment.first);
    if (current === undefined || segment.last > current.last) byFirst.set(segment.first, segment);
  }
  return [...byFirst.values()].sort((a, b) => a.first - b.first);
}

/** Segment files in sequence order (names that are not segments, such as temp files, are skipped). */
export async function listSegments(directory: string): Promise<SegmentFile[]> {
  let names: string[];
  try {
    names = await readdir(repositoryPaths(directory).journal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const segments: SegmentFile[] = [];
  for (const name of names) {
    const match = SEGMENT_NAME.exec(name);
    if (match) segments.push({ name, first: Number(match[1]), last: Number(match[2]) });
  }
  return segments.sort((a, b) => a.first - b.first || a.last - b.last);
}

/** Lines of one segment. */
export async function readSegmentLines(directory: string, segment: SegmentFile): Promise<string[]> {
  const text = await readFile(join(repositoryPaths(directory).journal, segment.name), 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Remove unpublished segments and temp files left by an interrupted export (writer only). */
export async function removeUnpublished(directory: string, exportedThrough: number): Promise<void> {
  const journal = repositoryPaths(directory).journal;
  const all = await listSegments(directory);
  const keep = new Set(publishedSegments(all, exportedThrough).map((segment) => segment.name));
  for (const segment of all) if (!keep.has(segment.name)) await rm(join(journal, segment.name), { force: true });
  for (const dir of [directory, journal, join(directory, 'base')]) {
    let names: string[] = [];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) if (name.startsWith('.') && name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
  }
}
