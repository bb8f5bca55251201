// The bounded tail of a failed release's output (app stdout/stderr and platform lines) kept with its
// failure, so the console and CLI can say what happened without a log query. Pure.

import { stripVTControlCharacters } from 'node:util';

/** At most this many lines are kept. */
export const OUTPUT_TAIL_LINES = 20;
/** And at most this many UTF-8 bytes in total (older lines are dropped first). */
export const OUTPUT_TAIL_BYTES = 4096;

// After escape sequences (colours, cursor moves, titles) are removed, any other C0/C1 control character
// except tab goes too: the tail is shown as plain text, and escapes from an app must not reach a terminal.
// eslint-disable-next-line no-control-regex
const controlChar = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** One line without terminal escapes or control characters (tabs kept), trailing space trimmed. */
export function plainLine(line: string): string {
  return stripVTControlCharacters(line).replace(controlChar, '').trimEnd();
}

/**
 * The newest lines of `lines` (oldest first), cleaned, within `maxLines` and `maxBytes`; a single line
 * longer than the byte bound is cut from its start so its end (usually the error) stays.
 */
export function outputTail(lines: readonly string[], maxLines = OUTPUT_TAIL_LINES, maxBytes = OUTPUT_TAIL_BYTES): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const line = plainLine(lines[i]!);
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.push(`…${cutToBytes(line, maxBytes - 4)}`);
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept.reverse();
}

/** The end of `line` within `maxBytes` UTF-8 bytes, never splitting a character. */
function cutToBytes(line: string, maxBytes: number): string {
  const chars = [...line];
  let bytes = 0;
  let start = chars.length;
  while (start > 0 && bytes + Buffer.byteLength(chars[start - 1]!) <= maxBytes) bytes += Buffer.byteLength(chars[--start]!);
  return chars.slice(start).join('');
}
