import { createPublicKey, type KeyObject } from 'node:crypto';
import { SvcError } from '../../core/errors.js';
import { eventDigest, sha256Hex } from './canonical-event.js';
import { exportEntrySchema, GENESIS_DIGEST, signatureValid, signingPayload, type AuditExportCheckpoint, type AuditExportEntry } from './export-entry.js';

/** A trusted public key: a KeyObject, PEM text, or DER/PEM bytes. */
export type AuditExportPublicKey = KeyObject | string | Buffer;

/**
 * Verify signed audit export entries, in order, and return the next checkpoint. Pure.
 * Without `previousCheckpoint` the entries must start at sequence 1. With one, they either
 * continue it (first sequence = checkpoint + 1, linked to its digest) or re-verify from
 * sequence 1, in which case they must reach the checkpoint and match its digest there
 * (this is what detects a removed suffix or a rollback). An empty list returns the checkpoint.
 */
export function verifyAuditExport(
  entries: readonly unknown[],
  publicKeys: Readonly<Record<string, AuditExportPublicKey>> | ReadonlyMap<string, AuditExportPublicKey>,
  previousCheckpoint?: AuditExportCheckpoint,
): AuditExportCheckpoint {
  const keys = resolveKeys(publicKeys);
  const genesis: AuditExportCheckpoint = { sequence: 0, digest: GENESIS_DIGEST };
  if (entries.length === 0) return previousCheckpoint ? { ...previousCheckpoint } : genesis;
  const first = exportEntrySchema.safeParse(entries[0]);
  const continues = previousCheckpoint !== undefined && first.success && first.data.sequence === previousCheckpoint.sequence + 1;
  let head: AuditExportCheckpoint = continues ? { ...previousCheckpoint } : genesis;
  let reachedCheckpoint = continues || previousCheckpoint === undefined || previousCheckpoint.sequence === 0;
  for (let i = 0; i < entries.length; i++) {
    const parsed = exportEntrySchema.safeParse(entries[i]);
    if (!parsed.success) throw new SvcError('SVC_AUDIT_EXPORT_MALFORMED', `Entry ${i} is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
    const entry = parsed.data;
    checkEntry(entry, head, keys, i);
    head = { sequence: entry.sequence, digest: entry.digest };
    if (previousCheckpoint !== undefined && !continues && entry.sequence === previousCheckpoint.sequence) {
      if (entry.digest !== previousCheckpoint.digest)
        throw new SvcError('SVC_AUDIT_EXPORT_ROLLBACK', `Entry ${entry.sequence} differs from the retained checkpoint (a rewritten history).`);
      reachedCheckpoint = true;
    }
  }
  if (!reachedCheckpoint) {
    throw new SvcError(
      'SVC_AUDIT_EXPORT_ROLLBACK',
      `The export ends at sequence ${head.sequence}, before the retained checkpoint ${previousCheckpoint!.sequence} (entries were removed).`,
    );
  }
  return head;
}

function checkEntry(entry: AuditExportEntry, head: AuditExportCheckpoint, keys: Map<string, KeyObject>, index: number): void {
  const expected = head.sequence + 1;
  if (entry.sequence > expected)
    throw new SvcError('SVC_AUDIT_EXPORT_SEQUENCE', `Entry ${index} has sequence ${entry.sequence}; expected ${expected} (entries omitted).`);
  if (entry.sequence < expected)
    throw new SvcError('SVC_AUDIT_EXPORT_SEQUENCE', `Entry ${index} has sequence ${entry.sequence}; expected ${expected} (reordered or duplicated).`);
  if (eventDigest(entry.sequence, entry.event) !== entry.eventDigest)
    throw new SvcError('SVC_AUDIT_EXPORT_TAMPERED', `Entry ${entry.sequence}: the event does not match its digest.`);
  if (entry.previousDigest !== head.digest) throw new SvcError('SVC_AUDIT_EXPORT_TAMPERED', `Entry ${entry.sequence} does not link to the previous entry.`);
  const payload = Buffer.from(signingPayload(entry), 'utf8');
  if (sha256Hex(payload) !== entry.digest) throw new SvcError('SVC_AUDIT_EXPORT_TAMPERED', `Entry ${entry.sequence}: the entry digest is wrong.`);
  const key = keys.get(entry.keyId);
  if (!key) throw new SvcError('SVC_AUDIT_EXPORT_UNKNOWN_KEY', `Entry ${entry.sequence} is signed with key "${entry.keyId}", which is not trusted.`);
  if (!signatureValid(entry, key, payload)) throw new SvcError('SVC_AUDIT_EXPORT_TAMPERED', `Entry ${entry.sequence}: the signature does not verify.`);
}

function resolveKeys(publicKeys: Readonly<Record<string, AuditExportPublicKey>> | ReadonlyMap<string, AuditExportPublicKey>): Map<string, KeyObject> {
  const pairs = publicKeys instanceof Map ? [...publicKeys.entries()] : Object.entries(publicKeys as Record<string, AuditExportPublicKey>);
  const out = new Map<string, KeyObject>();
  for (const [id, key] of pairs) {
    const object = typeof key === 'object' && !Buffer.isBuffer(key) ? key : createPublicKey(key);
    if (object.type !== 'public' || object.asymmetricKeyType !== 'ed25519')
      throw new SvcError('SVC_AUDIT_EXPORT_CONFIG', `Trusted key "${id}" is not an Ed25519 public key.`);
    out.set(id, object);
  }
  return out;
}
