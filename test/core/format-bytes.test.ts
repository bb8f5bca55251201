// svc's one byte format (CLI, bucket inventory, console): binary units, one decimal above bytes.
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/core/format-bytes.js';

describe('formatBytes', () => {
  it('writes bytes as they are and larger counts in KiB, MiB, GiB and TiB with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(64 * 1024 ** 2)).toBe('64.0 MiB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.0 GiB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3.0 TiB');
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048.0 TiB');
  });

  it('keeps the sign and a fraction of a byte (averages in charts)', () => {
    expect(formatBytes(-1536)).toBe('-1.5 KiB');
    expect(formatBytes(12.5)).toBe('12.5 B');
  });
});
