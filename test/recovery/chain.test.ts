// Pure tests of the entry codec and chain verification: no disk, no clock.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTarget, createChainVerifier, entryWithinTarget } from '../../src/recovery/chain.js';
import { openEntry, parseEntryLine, sealEntry } from '../../src/recovery/journal-entry.js';
import { deriveRecoveryKeys } from '../../src/recovery/recovery-keys.js';
import { accumulate, accumulatorHex, computeSeal, genesisDigest, rowDigest, rowDigestOfJson } from '../../src/recovery/state-seal.js';
import { decodeValue, encodeValue } from '../../src/recovery/value-codec.js';

const keys = deriveRecoveryKeys(Buffer.alloc(32, 3), 'epoch_test');
const seal = 'a'.repeat(64);
const genesis = genesisDigest('epoch_test', seal);

function chain(count: number): { lines: string[]; head: string } {
  const lines: string[] = [];
  let prev = genesis;
  for (let seq = 1; seq <= count; seq++) {
    const payload = JSON.stringify({ seal, acc: 'b'.repeat(64), changes: [{ t: 't', c: ['id', 'v'], d: [], u: [[seq, `v${seq}`]] }] });
    const { line, digest } = sealEntry({ epoch: 'epoch_test', seq, time: 1000 + seq, prev }, payload, keys.entry);
    lines.push(line);
    prev = digest;
  }
  return { lines, head: prev };
}

function verify(lines: string[], exportedThrough: number, headDigest: string): { code?: string; sequence?: number; last: number } {
  const verifier = createChainVerifier({ epochId: 'epoch_test', entryKey: keys.entry, genesis, baseTime: 1000, exportedThrough, headDigest });
  try {
    for (const line of lines) verifier.push(line);
    verifier.finish();
    return { last: verifier.last };
  } catch (error) {
    const e = error as { code: string; details: { sequence: number } };
    return { code: e.code, sequence: e.details.sequence, last: verifier.last };
  }
}

describe('journal entry codec', () => {
  it('round-trips a payload, uses a fresh nonce per entry and binds the header', () => {
    const header = { epoch: 'epoch_test', seq: 1, time: 5, prev: genesis };
    const a = sealEntry(header, '{"seal":"' + seal + '","acc":"' + seal + '","changes":[]}', keys.entry);
    const b = sealEntry(header, '{"seal":"' + seal + '","acc":"' + seal + '","changes":[]}', keys.entry);
    expect(a.line).not.toBe(b.line);
    const envelope = parseEntryLine(a.line)!;
    expect(openEntry(envelope, keys.entry)).toEqual({ seal, acc: seal, changes: [] });
    expect(openEntry({ ...envelope, seq: 2 }, keys.entry)).toBeNull();
    expect(openEntry({ ...envelope, time: 6 }, keys.entry)).toBeNull();
    expect(openEntry(envelope, deriveRecoveryKeys(Buffer.alloc(32, 4), 'epoch_test').entry)).toBeNull();
    expect(parseEntryLine(a.line.replace('{"v":1,', '{"v":1, '))).toBeNull();
  });

  it('encodes SQLite values with their storage class and rejects unsafe integers', () => {
    const values = [null, 5n, -(2n ** 53n - 1n), 1.5, 1, -0, Infinity, 'text', Buffer.from([1, 2])];
    const encoded = values.map((v) => encodeValue(v, () => 'x'));
    expect(encoded).toEqual([null, 5, -(2 ** 53 - 1), { f: 1.5 }, { f: 1 }, { f: '-0' }, { f: 'Infinity' }, 'text', { b: 'AQI=' }]);
    expect(encoded.map(decodeValue)).toEqual([null, 5n, -(2n ** 53n - 1n), 1.5, 1, -0, Infinity, 'text', Buffer.from([1, 2])]);
    expect(() => encodeValue(2n ** 53n, () => 't.v')).toThrow(expect.objectContaining({ code: 'SVC_RECOVERY_UNSAFE_INTEGER' }));
  });

  it('keeps the accumulator order-independent and exact under add/remove', () => {
    const a = rowDigest('t', [1, 'a']);
    const b = rowDigest('t', [2, 'b']);
    expect(accumulate(accumulate(0n, a, 1), b, 1)).toBe(accumulate(accumulate(0n, b, 1), a, 1));
    expect(accumulate(accumulate(accumulate(0n, a, 1), b, 1), a, -1)).toBe(accumulate(0n, b, 1));
    const input = { epochId: 'e', sequence: 1, previous: genesis, schemaHash: 'c'.repeat(64), accumulator: accumulatorHex(a) };
    expect(computeSeal(input)).not.toBe(computeSeal({ ...input, sequence: 2 }));
  });

  it('digests a row as SHA-256 of the JSON of [table, values], also when given the values already serialised', () => {
    // The digest is part of the on-disk seal: existing journals must keep verifying.
    for (const [table, row] of [
      ['t', [1, 'a']],
      ['we"ird\\name\u2028', [null, { f: 1.5 }, { b: 'AQI=' }, 'line\nbreak']],
    ] as const) {
      const expected = BigInt(
        `0x${createHash('sha256')
          .update(JSON.stringify([table, row]))
          .digest('hex')}`,
      );
      expect(rowDigest(table, row)).toBe(expected);
      expect(rowDigestOfJson(table, JSON.stringify(row))).toBe(expected);
    }
  });
});

describe('chain verification', () => {
  const { lines, head } = chain(6);

  it('accepts the intact chain through the head', () => {
    expect(verify(lines, 6, head)).toEqual({ last: 6 });
  });

  it('names the exact sequence of a gap, a duplicate, a reorder, a flip and a missing tail', () => {
    expect(verify([...lines.slice(0, 2), ...lines.slice(3)], 6, head)).toMatchObject({ code: 'SVC_RECOVERY_GAP', sequence: 3 });
    expect(verify([...lines.slice(0, 3), lines[2]!, ...lines.slice(3)], 6, head)).toMatchObject({ code: 'SVC_RECOVERY_CONFLICT', sequence: 3 });
    expect(verify([lines[0]!, lines[2]!, lines[1]!, ...lines.slice(3)], 6, head)).toMatchObject({ code: 'SVC_RECOVERY_GAP', sequence: 2 });
    const flipped = [...lines];
    flipped[3] = flipped[3]!.replace(/"data":"(.)/, (_m, c: string) => `"data":"${c === 'A' ? 'B' : 'A'}`);
    expect(verify(flipped, 6, head)).toMatchObject({ code: 'SVC_RECOVERY_TAMPERED', sequence: 4 });
    expect(verify(lines.slice(0, 5), 6, head)).toMatchObject({ code: 'SVC_RECOVERY_GAP', sequence: 6 });
    expect(verify(lines, 6, genesis)).toMatchObject({ code: 'SVC_RECOVERY_TAMPERED', sequence: 6 });
  });

  it('checks targets against the exported head and the base time', () => {
    expect(() => checkTarget({ throughSequence: 7 }, 6, 1000)).toThrow(expect.objectContaining({ code: 'SVC_RECOVERY_SEQUENCE_UNAVAILABLE' }));
    expect(() => checkTarget({ asOf: 999 }, 6, 1000)).toThrow(expect.objectContaining({ code: 'SVC_RECOVERY_BEFORE_BASE' }));
    expect(() => checkTarget({ asOf: 1000 }, 6, 1000)).not.toThrow();
    expect(entryWithinTarget({ asOf: 1003 }, { seq: 3, time: 1003 })).toBe(true);
    expect(entryWithinTarget({ asOf: 1003 }, { seq: 4, time: 1004 })).toBe(false);
    expect(entryWithinTarget({ throughSequence: 3 }, { seq: 4, time: 0 })).toBe(false);
  });
});
