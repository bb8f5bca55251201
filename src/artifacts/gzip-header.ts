// The gzip member header svc writes: no name, no comment, MTIME 0 (the fixed timestamp), OS 255 ("unknown").

/** Offset of the OS byte in a gzip header (RFC 1952 §2.3). */
const OS_OFFSET = 9;
/** RFC 1952 "unknown" operating system; zlib writes a platform-dependent value that would break cross-OS determinism. */
const OS_UNKNOWN = 0xff;

/** Rewrite the platform-dependent fields of zlib's gzip header in place so the bytes depend only on the input. */
export function normalizeGzipHeader(bytes: Buffer): Buffer {
  if (bytes.length < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new Error('not a gzip stream');
  // zlib already writes FLG 0 and MTIME 0; assert rather than assume.
  if (bytes[3] !== 0 || bytes.readUInt32LE(4) !== 0) throw new Error('unexpected gzip header flags or timestamp');
  bytes[OS_OFFSET] = OS_UNKNOWN;
  return bytes;
}
