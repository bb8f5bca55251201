import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/core/error-codes/index.js';

// Every code tells the user what to do next: the CLI prints the hint under the error and
// docs/errors.md shows it. The type makes `hint` required; this guards against empty or
// copy-pasted hints that satisfy the type but say nothing new.
const normalize = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s.]+$/u, '')
    .replace(/\s+/gu, ' ');

describe('error code hints', () => {
  const entries = Object.entries(errorCodes);

  it('covers a non-trivial registry', () => {
    expect(entries.length).toBeGreaterThan(100);
  });

  it.each(entries)('%s has a non-empty hint that is not its summary', (_code, def) => {
    expect(typeof def.hint).toBe('string');
    expect(def.hint.trim().length).toBeGreaterThan(0);
    expect(normalize(def.hint)).not.toBe(normalize(def.summary));
    expect(normalize(def.summary).includes(normalize(def.hint))).toBe(false);
  });
});
