import { randomInt } from 'node:crypto';

/** Consonants only: no vowels (no words), no 0/O, 1/I/L confusion; RFC 8628 §6.1 style. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const length = 8;

/** A fresh user code, stored normalized (`BCDFGHJK`); 20^8 ≈ 2^34.6 combinations. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < length; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** Normalize what a person typed (case, dashes, spaces); null when it cannot be a user code. Pure. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== length) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

/** Display form `XXXX-XXXX`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
