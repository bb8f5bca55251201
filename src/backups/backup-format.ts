// On-disk format of an encrypted backup (`svc-backup/1`, file `<id>.svcbak`), see docs/backups.md:
//   "SVCBAK01" | u32 header length | header JSON | frames…
//   frame = u32 plaintext length | u8 final | 12-byte nonce | ciphertext | 16-byte GCM tag
// Each frame is AES-256-GCM under the backup's own data key with AAD = SHA-256(magic+header) |
// u64 frame index | final flag, so reordered, dropped, truncated or altered frames (or an altered
// header) fail authentication. Decryption writes to a temp file that is renamed into place only
// after the final frame verified: a tampered backup never yields any plaintext.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { fsyncDirectory } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';

const MAGIC = Buffer.from('SVCBAK01', 'ascii');
const NONCE = 12;
const TAG = 16;
const FRAME_HEAD = 4 + 1 + NONCE;
/** Plaintext bytes per frame. */
export const FRAME_BYTES = 1024 * 1024;
const MAX_HEADER = 4096;

/** Header of a backup file (authenticated as part of every frame's AAD). */
export const backupHeaderSchema = z.object({
  format: z.literal('svc-backup/1'),
  backupId: z.string().min(1).max(100),
  projectId: z.string().min(1).max(100),
  createdAt: z.number().int(),
  hadDatabase: z.boolean(),
});
export type BackupHeader = z.infer<typeof backupHeaderSchema>;

function frameAad(headerDigest: Buffer, index: number, final: boolean): Buffer {
  const aad = Buffer.alloc(32 + 8 + 1);
  headerDigest.copy(aad, 0);
  aad.writeBigUInt64BE(BigInt(index), 32);
  aad[40] = final ? 1 : 0;
  return aad;
}

function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Encrypt `sourcePath` into `destPath` (temp file, fsync, rename, fsync dir). Returns the file size. */
export async function encryptBackupFile(sourcePath: string, destPath: string, key: Uint8Array, header: BackupHeader): Promise<number> {
  const headerBytes = Buffer.from(JSON.stringify(backupHeaderSchema.parse(header)), 'utf8');
  const prefix = Buffer.concat([MAGIC, u32(headerBytes.length), headerBytes]);
  const digest = createHash('sha256').update(prefix).digest();
  const temp = tempBeside(destPath);
  const source = await open(sourcePath, 'r');
  const out = await open(temp, 'wx', 0o600);
  let size = 0;
  try {
    await out.write(prefix);
    size += prefix.length;
    const buffer = Buffer.alloc(FRAME_BYTES);
    let index = 0;
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, FRAME_BYTES, null);
      const final = bytesRead === 0;
      const frame = sealFrame(key, digest, index++, final, buffer.subarray(0, bytesRead));
      await out.write(frame);
      size += frame.length;
      if (final) break;
    }
    await out.sync();
  } catch (error) {
    await out.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  } finally {
    await source.close();
  }
  await out.close();
  await rename(temp, destPath);
  await fsyncDirectory(dirname(destPath));
  return size;
}

function sealFrame(key: Uint8Array, digest: Buffer, index: number, final: boolean, plain: Buffer): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(frameAad(digest, index, final));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([u32(plain.length), Buffer.from([final ? 1 : 0]), nonce, body, cipher.getAuthTag()]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/**
 * Decrypt and authenticate `sourcePath` into `destPath`. The header must name `expect`'s backup
 * and project. Throws SVC_BACKUP_DECRYPT_FAILED (and leaves no output) on any mismatch.
 */
export async function decryptBackupFile(
  sourcePath: string,
  destPath: string,
  key: Uint8Array,
  expect: { backupId: string; projectId: string },
): Promise<BackupHeader> {
  const fail = (why: string): never => {
    throw new SvcError('SVC_BACKUP_DECRYPT_FAILED', `Backup ${expect.backupId} failed authentication (${why}); nothing was decrypted.`);
  };
  const temp = tempBeside(destPath);
  const source = await open(sourcePath, 'r').catch(() => fail('file missing'));
  const out = await open(temp, 'wx', 0o600);
  let ok = false;
  try {
    const { size } = await source.stat();
    const read = async (position: number, length: number): Promise<Buffer> => {
      if (position + length > size) fail('truncated');
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await source.read(buffer, 0, length, position);
      if (bytesRead !== length) fail('truncated');
      return buffer;
    };
    const magic = await read(0, MAGIC.length);
    if (!magic.equals(MAGIC)) fail('not an svc backup');
    const headerLength = (await read(MAGIC.length, 4)).readUInt32BE(0);
    if (headerLength > MAX_HEADER) fail('header too large');
    const headerBytes = await read(MAGIC.length + 4, headerLength);
    const digest = createHash('sha256')
      .update(Buffer.concat([magic, u32(headerLength), headerBytes]))
      .digest();
    let position = MAGIC.length + 4 + headerLength;
    for (let index = 0; ; index++) {
      const head = await read(position, FRAME_HEAD);
      const length = head.readUInt32BE(0);
      const final = head[4] === 1;
      if (length > FRAME_BYTES || head[4]! > 1 || (final && length !== 0)) fail('bad frame');
      const body = await read(position + FRAME_HEAD, length + TAG);
      const decipher = createDecipheriv('aes-256-gcm', key, head.subarray(5, 5 + NONCE));
      decipher.setAAD(frameAad(digest, index, final));
      decipher.setAuthTag(body.subarray(length));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(body.subarray(0, length)), decipher.final()]);
      } catch {
        return fail(`frame ${index}`);
      }
      await out.write(plain);
      position += FRAME_HEAD + length + TAG;
      if (final) break;
    }
    if (position !== size) fail('trailing data');
    // The header was authenticated through every frame's AAD; now it can be trusted.
    let header: BackupHeader;
    try {
      header = backupHeaderSchema.parse(JSON.parse(headerBytes.toString('utf8')));
    } catch {
      return fail('header');
    }
    if (header.backupId !== expect.backupId || header.projectId !== expect.projectId) fail('belongs to another backup');
    await out.sync();
    ok = true;
    await out.close();
    await rename(temp, destPath);
    return header;
  } finally {
    await source.close();
    if (!ok) {
      await out.close().catch(() => undefined);
      await rm(temp, { force: true });
    }
  }
}
