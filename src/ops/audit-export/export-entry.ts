import { sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, eventDigest, sha256Hex, type CanonicalAuditEvent } from './canonical-event.js';

/** Digest the first entry links to. */
export const GENESIS_DIGEST = '0'.repeat(64);
/** Domain separation: an export signature can never be replayed as another svc signature. */
const SIGNING_DOMAIN = 'svc-audit-export/v1\n';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** The wire shape of one signed export entry (validated by the verifier). */
export const exportEntrySchema = z.strictObject({
  version: z.literal(1),
  sequence: z.number().int().min(1),
  event: z.strictObject({
    id: z.string().min(1),
    kind: z.string().min(1),
    organizationId: z.string().nullable(),
    projectId: z.string().nullable(),
    actor: z.strictObject({ type: z.string(), id: z.string(), name: z.string().nullable() }),
    metadata: z.string(),
    createdAt: z.number().int(),
  }),
  eventDigest: hex64,
  previousDigest: hex64,
  digest: hex64,
  keyId: z.string().min(1).max(200),
  signature: z.string().min(1).max(200),
});

/** One signed, sequence-linked audit export entry. */
export type AuditExportEntry = z.infer<typeof exportEntrySchema>;

/** Where a verified export ends: the last sequence and its entry digest. */
export interface AuditExportCheckpoint {
  sequence: number;
  digest: string;
}

/** The bytes that are hashed into `digest` and signed: the domain, then the canonical JSON of these fields. */
export function signingPayload(entry: Pick<AuditExportEntry, 'version' | 'sequence' | 'eventDigest' | 'previousDigest' | 'keyId'>): string {
  const { version, sequence, eventDigest, previousDigest, keyId } = entry;
  // Written out in sorted key order, as canonicalJson writes it; other value types take the generic encoder.
  const fixed = typeof eventDigest === 'string' && typeof previousDigest === 'string' && typeof keyId === 'string';
  if (!fixed || !Number.isFinite(sequence) || !Number.isFinite(version))
    return SIGNING_DOMAIN + canonicalJson({ version, sequence, eventDigest, previousDigest, keyId });
  return (
    `${SIGNING_DOMAIN}{"eventDigest":${JSON.stringify(eventDigest)},"keyId":${JSON.stringify(keyId)}` +
    `,"previousDigest":${JSON.stringify(previousDigest)},"sequence":${sequence},"version":${version}}`
  );
}

/** Build and sign the entry for `event` at `sequence`, linked to the previous entry's digest. Pure. */
export function signExportEntry(input: {
  sequence: number;
  event: CanonicalAuditEvent;
  previousDigest: string;
  keyId: string;
  privateKey: KeyObject;
}): AuditExportEntry {
  const base = {
    version: 1 as const,
    sequence: input.sequence,
    eventDigest: eventDigest(input.sequence, input.event),
    previousDigest: input.previousDigest,
    keyId: input.keyId,
  };
  // One encoding of the payload serves both the digest and the signature.
  const payload = Buffer.from(signingPayload(base), 'utf8');
  const signature = sign(null, payload, input.privateKey).toString('base64');
  return { ...base, event: input.event, digest: sha256Hex(payload), signature };
}

/** True when the entry's signature verifies under `publicKey`. */
export function signatureValid(entry: AuditExportEntry, publicKey: KeyObject, payload = Buffer.from(signingPayload(entry), 'utf8')): boolean {
  try {
    return verify(null, payload, publicKey, Buffer.from(entry.signature, 'base64'));
  } catch {
    return false;
  }
}
