import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import type { CanonicalAuditEvent } from '../../../src/ops/audit-export/canonical-event.js';
import { GENESIS_DIGEST, signExportEntry, type AuditExportEntry } from '../../../src/ops/audit-export/export-entry.js';
import { verifyAuditExport } from '../../../src/ops/audit-export/verify-audit-export.js';
import { verifyAuditExport as fromLibrary } from '../../../src/operations.js';
import { ed25519 } from './export-db.js';

const keys = ed25519();
const trusted = { k1: keys.publicKey };

function event(n: number): CanonicalAuditEvent {
  return {
    id: `evt_${n}`,
    kind: 'project.create',
    organizationId: 'org_1',
    projectId: null,
    actor: { type: 'user', id: 'usr_1', name: null },
    metadata: JSON.stringify({ n }),
    createdAt: 1000 + n,
  };
}

function chain(count: number, keyId = 'k1', privateKey = keys.privateKey): AuditExportEntry[] {
  const out: AuditExportEntry[] = [];
  let previous = GENESIS_DIGEST;
  for (let s = 1; s <= count; s++) {
    const entry = signExportEntry({ sequence: s, event: event(s), previousDigest: previous, keyId, privateKey });
    out.push(entry);
    previous = entry.digest;
  }
  return out;
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof SvcError) return error.code;
    throw error;
  }
  return undefined;
}

const clone = <T>(v: T): T => structuredClone(v);

describe('verifyAuditExport', () => {
  it('accepts an intact export, returns the next checkpoint, and continues from a checkpoint', () => {
    const entries = chain(10);
    expect(fromLibrary).toBe(verifyAuditExport);
    const cp = verifyAuditExport(entries, trusted);
    expect(cp).toEqual({ sequence: 10, digest: entries[9]!.digest });
    const first = verifyAuditExport(entries.slice(0, 4), trusted);
    expect(verifyAuditExport(entries.slice(4), trusted, first)).toEqual(cp);
    expect(verifyAuditExport([], trusted, cp)).toEqual(cp);
    expect(
      verifyAuditExport(JSON.parse(JSON.stringify(entries)) as unknown[], new Map([['k1', keys.publicKey.export({ type: 'spki', format: 'pem' })]])),
    ).toEqual(cp);
  });

  it('rejects an altered event, digest, link or signature', () => {
    const base = chain(5);
    const altered = clone(base);
    altered[2]!.event.metadata = JSON.stringify({ n: 999 });
    expect(code(() => verifyAuditExport(altered, trusted))).toBe('SVC_AUDIT_EXPORT_TAMPERED');
    const kind = clone(base);
    kind[0]!.event.kind = 'project.delete';
    expect(code(() => verifyAuditExport(kind, trusted))).toBe('SVC_AUDIT_EXPORT_TAMPERED');
    const sig = clone(base);
    sig[4]!.signature = Buffer.from(sig[3]!.signature, 'base64').toString('base64');
    expect(code(() => verifyAuditExport(sig, trusted))).toBe('SVC_AUDIT_EXPORT_TAMPERED');
    // Re-signed by an attacker's key under the trusted key id.
    const forged = chain(5, 'k1', ed25519().privateKey);
    expect(code(() => verifyAuditExport(forged, trusted))).toBe('SVC_AUDIT_EXPORT_TAMPERED');
    expect(code(() => verifyAuditExport(chain(2, 'k2'), trusted))).toBe('SVC_AUDIT_EXPORT_UNKNOWN_KEY');
  });

  it('rejects reordering, omission and duplication', () => {
    const base = chain(6);
    const reordered = [base[0], base[2], base[1], base[3]];
    expect(code(() => verifyAuditExport(reordered, trusted))).toBe('SVC_AUDIT_EXPORT_SEQUENCE');
    const omitted = [base[0], base[1], base[3], base[4]];
    expect(code(() => verifyAuditExport(omitted, trusted))).toBe('SVC_AUDIT_EXPORT_SEQUENCE');
    expect(code(() => verifyAuditExport(base.slice(1), trusted))).toBe('SVC_AUDIT_EXPORT_SEQUENCE'); // prefix omitted
    expect(code(() => verifyAuditExport([base[0], base[1], base[1]], trusted))).toBe('SVC_AUDIT_EXPORT_SEQUENCE');
    // Renumbering around an omitted entry breaks the signed link.
    const renumbered = clone(base.slice(0, 3));
    renumbered.splice(1, 1);
    renumbered[1]!.sequence = 2;
    expect(code(() => verifyAuditExport(renumbered, trusted))).not.toBeUndefined();
  });

  it('rejects a truncated entry', () => {
    const base = clone(chain(3));
    const cut = JSON.parse(
      JSON.stringify(base[1])
        .slice(0, -1)
        .replace(/,"signature":"[^"]*"$/, '') + '}',
    ) as unknown;
    expect(code(() => verifyAuditExport([base[0], cut, base[2]], trusted))).toBe('SVC_AUDIT_EXPORT_MALFORMED');
    const empty = { ...base[1]!, signature: '' };
    expect(code(() => verifyAuditExport([base[0], empty], trusted))).toBe('SVC_AUDIT_EXPORT_MALFORMED');
  });

  it('a removed suffix passes without a retained checkpoint and is rejected with one', () => {
    const base = chain(10);
    const retained = verifyAuditExport(base, trusted);
    const shortened = base.slice(0, 7);
    // Documented limitation: without a retained checkpoint a valid prefix verifies (to an older checkpoint).
    expect(verifyAuditExport(shortened, trusted)).toEqual({ sequence: 7, digest: base[6]!.digest });
    expect(code(() => verifyAuditExport(shortened, trusted, retained))).toBe('SVC_AUDIT_EXPORT_ROLLBACK');
    // A rewritten history of the same length does not match the retained digest.
    const other = chain(10, 'k1');
    other[9] = signExportEntry({
      sequence: 10,
      event: { ...event(10), kind: 'x.y' },
      previousDigest: other[8]!.digest,
      keyId: 'k1',
      privateKey: keys.privateKey,
    });
    expect(code(() => verifyAuditExport(other, trusted, retained))).toBe('SVC_AUDIT_EXPORT_ROLLBACK');
    // Full re-verification that reaches the checkpoint is fine.
    expect(verifyAuditExport(base, trusted, verifyAuditExport(base.slice(0, 5), trusted))).toEqual(retained);
  });
});
