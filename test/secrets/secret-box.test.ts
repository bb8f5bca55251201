import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { checkSecretName, checkSecretValue } from '../../src/secrets/contract.js';
import { deriveKeyring, keyCheckValue, parseMasterKey } from '../../src/secrets/master-key.js';
import { openBox, sealBox, secretAad } from '../../src/secrets/secret-box.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isSvcError(error) ? error.code : 'not-svc';
  }
  return undefined;
}

describe('secret box (AES-256-GCM with project + scope + name as AAD)', () => {
  const key = randomBytes(32);

  it('round-trips values with newlines and arbitrary bytes', () => {
    const value = Buffer.from('line one\nline two\r\n\u00e9\u{1F600}\0tail', 'utf8');
    const box = sealBox(key, value, secretAad('prj_a', 'production', 'API_KEY'));
    expect(box.includes(Buffer.from('line one'))).toBe(false);
    expect(openBox(key, box, secretAad('prj_a', 'production', 'API_KEY')).equals(value)).toBe(true);
  });

  it('uses a fresh nonce every time', () => {
    const a = sealBox(key, Buffer.from('same'), secretAad('p', 'production', 'N'));
    const b = sealBox(key, Buffer.from('same'), secretAad('p', 'production', 'N'));
    expect(a.equals(b)).toBe(false);
  });

  it('fails authentication, without plaintext, for any flipped bit, another AAD or another key', () => {
    const box = sealBox(key, Buffer.from('s3cret'), secretAad('prj_a', 'production', 'TOKEN'));
    for (let i = 0; i < box.length; i++) {
      const tampered = Buffer.from(box);
      tampered[i]! ^= 0x01;
      expect(code(() => openBox(key, tampered, secretAad('prj_a', 'production', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    }
    expect(code(() => openBox(key, box, secretAad('prj_b', 'production', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    expect(code(() => openBox(key, box, secretAad('prj_a', 'production', 'OTHER')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    expect(code(() => openBox(randomBytes(32), box, secretAad('prj_a', 'production', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    expect(code(() => openBox(key, box.subarray(0, 20), secretAad('prj_a', 'production', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
  });

  it('keeps the production AAD of stored secrets and binds a preview box to its scope', () => {
    // The exact bytes secrets were sealed with before scopes existed: they must still open.
    expect(secretAad('prj_a', 'production', 'TOKEN').equals(Buffer.from('svc-secret/v1\0prj_a\0TOKEN'))).toBe(true);
    expect(secretAad('prj_a', 'preview', 'TOKEN').equals(Buffer.from('svc-secret/v1\0prj_a\0preview\0TOKEN'))).toBe(true);
    const production = sealBox(key, Buffer.from('live'), secretAad('prj_a', 'production', 'TOKEN'));
    const preview = sealBox(key, Buffer.from('test'), secretAad('prj_a', 'preview', 'TOKEN'));
    expect(openBox(key, preview, secretAad('prj_a', 'preview', 'TOKEN')).toString()).toBe('test');
    expect(code(() => openBox(key, production, secretAad('prj_a', 'preview', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    expect(code(() => openBox(key, preview, secretAad('prj_a', 'production', 'TOKEN')))).toBe('SVC_SECRET_DECRYPT_FAILED');
    // A name cannot impersonate the preview part (names never contain NUL, "preview" alone is another name).
    expect(secretAad('prj_a', 'production', 'preview').equals(secretAad('prj_a', 'preview', ''))).toBe(false);
  });
});

describe('master key parsing and derivation', () => {
  it('accepts 32 bytes as hex or base64 (standard or URL-safe) and nothing else', () => {
    const raw = randomBytes(32);
    expect(parseMasterKey(raw.toString('hex')).equals(raw)).toBe(true);
    expect(parseMasterKey(`${raw.toString('base64')}\n`).equals(raw)).toBe(true);
    expect(parseMasterKey(raw.toString('base64url')).equals(raw)).toBe(true);
    for (const bad of ['', 'short', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64)]) {
      expect(code(() => parseMasterKey(bad))).toBe('SVC_MASTER_KEY_INVALID');
    }
  });

  it('derives distinct purpose keys and a stable check value', () => {
    const master = randomBytes(32);
    const ring = deriveKeyring(master, 'env');
    expect(ring.secretsKey.equals(ring.backupsKey)).toBe(false);
    expect(ring.secretsKey.equals(master)).toBe(false);
    expect(ring.checkValue).toBe(keyCheckValue(master));
    expect(keyCheckValue(randomBytes(32))).not.toBe(ring.checkValue);
  });
});

describe('secret name and value rules', () => {
  it('rejects reserved and malformed names', () => {
    for (const name of ['PATH', 'HOME', 'HOST', 'PORT', 'NODE_ENV', 'TRUST_PROXY', 'NODE_OPTIONS', 'SVC_X', 'svc_lower', 'LD_PRELOAD', 'path'])
      expect(checkSecretName(name), name).toBe('reserved');
    for (const name of ['', '1ABC', 'A-B', 'A B', 'A=B', 'Ä', 'x'.repeat(129)]) expect(checkSecretName(name), name).toBe('invalid');
    for (const name of ['API_KEY', '_private', 'stripeKey2']) expect(checkSecretName(name), name).toBeNull();
  });

  it('accepts newlines, rejects NUL, lone surrogates and oversize values', () => {
    expect(checkSecretValue('a\nb\r\n')).toBeNull();
    expect(checkSecretValue('a\0b')).toBe('nul');
    expect(checkSecretValue('\uD800x')).toBe('encoding');
    expect(checkSecretValue('x'.repeat(64 * 1024 + 1))).toBe('too-large');
  });
});
