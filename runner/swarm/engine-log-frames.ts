// The Engine multiplexes a non-TTY log stream into frames: one byte stream type (0 stdin, 1 stdout,
// 2 stderr), three zero bytes, a big-endian uint32 length, then the payload. Pure.

/** stdout and stderr payloads in the order they were written; a buffer that is not framed (a TTY) as-is. */
export function demultiplexLogs(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const header = buffer.subarray(offset, offset + 8);
    const type = header[0];
    if (header.length < 8 || type === undefined || type > 2 || header[1] !== 0 || header[2] !== 0 || header[3] !== 0) return buffer.toString('utf8');
    const size = header.readUInt32BE(4);
    if (offset + 8 + size > buffer.length) return buffer.toString('utf8');
    parts.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
