// Artifact-shaped gzip bombs, generated streaming (nothing of the inflated size is ever held): a
// canonical header followed by files of declared size whose base64 content is all "A" (zero bytes),
// which gzip squeezes about a thousandfold.
import { createHash } from 'node:crypto';
import { createGzip } from 'node:zlib';
import { currentHeader, encodeFileOpen, encodeHeader, MODE_FILE } from '../../src/artifacts/document.js';
import type { DeployConfig } from '../../src/artifacts/index.js';

const MiB = 1024 * 1024;

/** gzip of `parts` (strings or repeated blocks), streamed. */
async function gzipStream(parts: Iterable<string | { repeat: Buffer; bytes: number }>): Promise<Buffer> {
  const gzip = createGzip({ level: 6 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject));
  const write = async (chunk: Buffer | string): Promise<void> => {
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
  };
  for (const part of parts) {
    if (typeof part === 'string') await write(part);
    else
      for (let left = part.bytes; left > 0; left -= part.repeat.length) await write(left >= part.repeat.length ? part.repeat : part.repeat.subarray(0, left));
  }
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

/** A document of `files` files of `fileBytes` zero bytes each under dist/, valid apart from its size. */
export async function documentBomb(config: DeployConfig, files: number, fileBytes = 64 * MiB): Promise<Buffer> {
  const sha256 = createHash('sha256').update(Buffer.alloc(fileBytes)).digest('hex');
  const base64Chars = Math.ceil(fileBytes / 3) * 4;
  const padding = fileBytes % 3 === 0 ? 0 : 3 - (fileBytes % 3);
  const parts: (string | { repeat: Buffer; bytes: number })[] = [encodeHeader(currentHeader(config))];
  for (let i = 0; i < files; i++) {
    parts.push(`${i === 0 ? '' : ','}${encodeFileOpen({ path: `dist/bomb-${String(i).padStart(3, '0')}.bin`, size: fileBytes, mode: MODE_FILE, sha256 })}`);
    parts.push({ repeat: Buffer.alloc(MiB, 'A'), bytes: base64Chars - padding }, `${'='.repeat(padding)}"}`);
  }
  parts.push(']}');
  return gzipStream(parts);
}

/** gzip of `bytes` zero bytes: the classic bomb (not even a document). */
export function zeroBomb(bytes: number): Promise<Buffer> {
  return gzipStream([{ repeat: Buffer.alloc(MiB), bytes }]);
}
