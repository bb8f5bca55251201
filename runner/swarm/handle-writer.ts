// A Writable over an open file handle that leaves the handle open, so the caller can fsync and close
// it after the last byte (a handle's own write stream never reports the end without closing it).
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

export function handleWriter(handle: FileHandle): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      handle.write(chunk).then(() => done(), done);
    },
  });
}
