// AES-256-GCM sealing of small values (secrets, wrapped backup keys). Format of a box:
// version byte 0x01 | 12-byte random nonce | ciphertext | 16-byte tag. The additional data (AAD)
// binds a box to where it belongs (project id, scope, secret name), so a box copied elsewhere fails.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import type { ErrorCode } from '../core/errors.js';
import type { SecretScope } from './contract.js';

const VERSION = 0x01;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Encrypt `plaintext` under a 32-byte key with AAD. */
export function sealBox(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  if (key.length !== 32) throw new SvcError('SVC_INTERNAL', 'AES-256-GCM needs a 32-byte key');
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
}

/**
 * Decrypt a box. Any change to the box, the AAD or the key fails authentication and throws
 * `failure` (default SVC_SECRET_DECRYPT_FAILED) without returning any plaintext.
 */
export function openBox(key: Uint8Array, box: Uint8Array, aad: Uint8Array, failure: ErrorCode = 'SVC_SECRET_DECRYPT_FAILED'): Buffer {
  const data = Buffer.from(box);
  if (key.length !== 32 || data.length < 1 + NONCE_BYTES + TAG_BYTES || data[0] !== VERSION) throw new SvcError(failure);
  const nonce = data.subarray(1, 1 + NONCE_BYTES);
  const tag = data.subarray(data.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data.subarray(1 + NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SvcError(failure);
  }
}

/**
 * AAD of a secret: its project, scope and name, NUL-separated (none can contain NUL). Production
 * keeps the form from before scopes existed, so stored values still open; preview adds a part, so
 * a box moved between the scopes of the same name fails authentication.
 */
export function secretAad(projectId: string, scope: SecretScope, name: string): Buffer {
  return Buffer.from(scope === 'production' ? `svc-secret/v1\0${projectId}\0${name}` : `svc-secret/v1\0${projectId}\0preview\0${name}`, 'utf8');
}
