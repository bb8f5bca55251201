import { randomBytes } from 'node:crypto';

/** Generates identifiers; passed in so tests can make them predictable. */
export type IdGenerator = (prefix: string) => string;

// Lower-case base32 without padding: URL-safe, case-insensitive, no ambiguous symbols.
const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/** Random 80-bit identifiers such as `rel_k3j…`; sortable ids are not needed (rows carry timestamps). */
export const randomId: IdGenerator = (prefix) => {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `${prefix}_${out}`;
};

/** Deterministic ids for tests: `rel_1`, `rel_2`, … per prefix. */
export function sequentialIds(): IdGenerator {
  const counters = new Map<string, number>();
  return (prefix) => {
    const next = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, next);
    return `${prefix}_${next}`;
  };
}
