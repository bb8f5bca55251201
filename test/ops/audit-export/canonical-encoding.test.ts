// The fixed-shape encoders must write exactly the bytes the generic canonical encoder writes: every
// digest and signature ever issued depends on them.
import { describe, expect, it } from 'vitest';
import { canonicalEventJson, canonicalJson, type CanonicalAuditEvent } from '../../../src/ops/audit-export/canonical-event.js';
import { signingPayload } from '../../../src/ops/audit-export/export-entry.js';

const tricky = [
  '',
  'plain',
  'quote " and \\ backslash',
  'line\nbreak\ttab',
  'ünïcödé ✓ 🚀',
  '\u2028\u2029',
  '\u0000\u001f',
  'lone \ud800 surrogate',
  '{"a":1}',
];

function events(): CanonicalAuditEvent[] {
  const out: CanonicalAuditEvent[] = [];
  tricky.forEach((text, i) => {
    out.push({
      id: text || 'evt',
      kind: text,
      organizationId: i % 2 === 0 ? null : text,
      projectId: i % 3 === 0 ? text : null,
      actor: { type: text, id: `usr_${text}`, name: i % 2 === 0 ? text : null },
      metadata: JSON.stringify({ text, n: i }),
      createdAt: i === 0 ? 0 : 1_700_000_000_000 + i,
    });
  });
  return out;
}

describe('canonical audit export encodings', () => {
  it('canonicalEventJson writes the same bytes as canonicalJson({ sequence, event })', () => {
    for (const [i, event] of events().entries()) {
      for (const sequence of [1, i + 2, 9_007_199_254_740_991]) expect(canonicalEventJson(sequence, event)).toBe(canonicalJson({ sequence, event }));
    }
  });

  it('an event with a missing field falls back to the generic encoder (the key is left out)', () => {
    const event = { ...events()[1]!, projectId: undefined } as unknown as CanonicalAuditEvent;
    expect(canonicalEventJson(3, event)).toBe(canonicalJson({ sequence: 3, event }));
    expect(canonicalEventJson(3, event)).not.toContain('projectId');
    expect(() => canonicalEventJson(Number.NaN, events()[0]!)).toThrow(TypeError);
  });

  it('signingPayload writes the domain and the sorted canonical fields', () => {
    for (const keyId of ['k1', 'key "quoted" ✓', '']) {
      const fields = { version: 1 as const, sequence: 42, eventDigest: 'a'.repeat(64), previousDigest: '0'.repeat(64), keyId };
      expect(signingPayload(fields)).toBe(`svc-audit-export/v1\n${canonicalJson(fields)}`);
    }
  });
});
