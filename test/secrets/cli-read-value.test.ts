// `svc secrets set` reads the value from standard input: exact bytes minus one trailing newline,
// never from an interactive terminal, never with NUL or invalid UTF-8.
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { readSecretValue } from '../../cli/commands/secrets.js';

function stdin(chunks: (string | Uint8Array)[], isTTY = false) {
  return {
    isTTY,
    async *[Symbol.asyncIterator]() {
      for (const c of chunks) yield c;
    },
  };
}
async function code(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (isSvcError(e) ? e.code : 'other'),
  );
}

describe('readSecretValue', () => {
  it('keeps newlines inside the value and drops exactly one trailing newline', async () => {
    expect(await readSecretValue(stdin(['line1\nline2\n']), false)).toBe('line1\nline2');
    expect(await readSecretValue(stdin(['a\r\n']), false)).toBe('a');
    expect(await readSecretValue(stdin(['a\n\n']), false)).toBe('a\n');
    expect(await readSecretValue(stdin(['a\n']), true)).toBe('a\n');
    expect(await readSecretValue(stdin([Buffer.from('h\u00e9'), Buffer.from('llo')]), false)).toBe('h\u00e9llo');
  });

  it('refuses a terminal, NUL bytes, invalid UTF-8 and oversize input', async () => {
    expect(await code(readSecretValue(stdin(['x'], true), false))).toBe('SVC_USAGE');
    expect(await code(readSecretValue(stdin(['a\0b']), false))).toBe('SVC_SECRET_VALUE_INVALID');
    expect(await code(readSecretValue(stdin([Buffer.from([0xff, 0xfe])]), false))).toBe('SVC_SECRET_VALUE_INVALID');
    expect(await code(readSecretValue(stdin(['x'.repeat(70 * 1024)]), false))).toBe('SVC_SECRET_VALUE_INVALID');
  });
});
