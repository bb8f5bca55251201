// GIF dimensions as decoders see them (pure): the logical screen AND every frame's extent. Decoders such as
// libvips render a frame larger than the logical screen at the frame's size, so a GIF can declare a small
// screen and still decode large; the extent is the maximum over both. Returns null for non-GIF bytes.

/** Largest width/height over the logical screen and all frames seen; `complete` is false when the bytes end first. */
export function gifDimensions(bytes: Uint8Array): { width: number; height: number; frames: number; complete: boolean } | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 13 || (b.toString('latin1', 0, 6) !== 'GIF87a' && b.toString('latin1', 0, 6) !== 'GIF89a')) return null;
  let width = b.readUInt16LE(6);
  let height = b.readUInt16LE(8);
  let frames = 0;
  const packed = b[10]!;
  let at = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  const skipSubBlocks = (): boolean => {
    while (at < b.length) {
      const size = b[at]!;
      at += 1 + size;
      if (size === 0) return true;
    }
    return false;
  };
  // Bounded by the input: every step advances `at`.
  while (at < b.length) {
    const introducer = b[at]!;
    if (introducer === 0x3b) return { width, height, frames, complete: true };
    if (introducer === 0x21) {
      at += 2;
      if (!skipSubBlocks()) break;
      continue;
    }
    if (introducer !== 0x2c || at + 10 > b.length) break;
    const left = b.readUInt16LE(at + 1);
    const top = b.readUInt16LE(at + 3);
    width = Math.max(width, left + b.readUInt16LE(at + 5));
    height = Math.max(height, top + b.readUInt16LE(at + 7));
    frames += 1;
    const local = b[at + 9]!;
    at += 10 + (local & 0x80 ? 3 * 2 ** ((local & 0x07) + 1) : 0) + 1; // descriptor, local colour table, LZW code size
    if (!skipSubBlocks()) break;
  }
  return { width, height, frames, complete: false };
}
