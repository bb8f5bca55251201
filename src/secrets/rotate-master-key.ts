// Master-key rotation: every secret (production and preview) is re-encrypted and every backup's
// wrapped data key re-wrapped under the new key, and the key check value replaced, in ONE
// control-database transaction. With a key file the new key is written to master.key.next first
// and renamed over master.key after the commit; a crash in between is finished at the next start
// (loadMasterKey).
import { rm } from 'node:fs/promises';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile, fsyncDirectory } from '../core/atomic-write.js';
import type { ControlDb } from '../core/control-db.js';
import { SvcError } from '../core/errors.js';
import { deriveKeyring, generateMasterKeyText, loadMasterKey, MASTER_KEY_FILE, NEXT_MASTER_KEY_FILE, parseMasterKey, type Keyring } from './master-key.js';
import { openBox, sealBox, secretAad } from './secret-box.js';
import { allSecretRows, readCheckValue, replaceCiphertext, writeCheckValue } from './secret-store.js';

/** Re-wraps another feature's keys inside the rotation transaction; returns how many it changed. */
export type KeyRewrapper = (db: ControlDb, from: Keyring, to: Keyring) => number;

export interface RotateOptions {
  db: ControlDb;
  dataDir: string;
  /** Environment holding the current key (SVC_PLATFORM_MASTER_KEY) if it is not the key file. */
  env: Readonly<Record<string, string | undefined>>;
  /** New key (hex or base64). Required when the current key comes from the environment; generated otherwise. */
  newKey?: string;
  /** Other features' wrapped keys (backups). */
  rewrappers: readonly KeyRewrapper[];
  now: number;
}

export interface RotateResult {
  secrets: number;
  rewrapped: number;
  source: Keyring['source'];
  checkValue: string;
}

/** Rotate the platform master key (run with the control plane stopped). */
export async function rotateMasterKey(options: RotateOptions): Promise<RotateResult> {
  const ctx = { db: options.db };
  const current = loadMasterKey({ env: options.env, dataDir: options.dataDir, storedCheckValue: readCheckValue(ctx) });
  if (current.source === 'env' && options.newKey === undefined) {
    throw new SvcError(
      'SVC_MASTER_KEY_INVALID',
      'The current key comes from SVC_PLATFORM_MASTER_KEY: give the new key (SVC_NEW_PLATFORM_MASTER_KEY) so you can set it afterwards.',
    );
  }
  const newText = options.newKey ?? generateMasterKeyText();
  const next = deriveKeyring(parseMasterKey(newText), current.source);
  if (next.checkValue === current.checkValue) throw new SvcError('SVC_MASTER_KEY_INVALID', 'The new master key is the current key.');
  const nextFile = join(options.dataDir, NEXT_MASTER_KEY_FILE);
  if (current.source === 'file') await atomicWriteFile(nextFile, `${newText.trim()}\n`, { mode: 0o600 });
  let counts: { secrets: number; rewrapped: number };
  try {
    counts = options.db
      .transaction(() => {
        const rows = allSecretRows(ctx);
        for (const row of rows) {
          // Each box keeps its own binding (project, scope, name); only the key changes.
          const aad = secretAad(row.project_id, row.scope, row.name);
          replaceCiphertext(ctx, row, sealBox(next.secretsKey, openBox(current.secretsKey, row.ciphertext, aad), aad));
        }
        let rewrapped = 0;
        for (const rewrap of options.rewrappers) rewrapped += rewrap(options.db, current, next);
        writeCheckValue(ctx, next.checkValue, options.now);
        return { secrets: rows.length, rewrapped };
      })
      .immediate();
  } catch (error) {
    await rm(nextFile, { force: true });
    throw error;
  }
  if (current.source === 'file') {
    renameSync(nextFile, join(options.dataDir, MASTER_KEY_FILE));
    await fsyncDirectory(options.dataDir);
  }
  return { ...counts, source: current.source, checkValue: next.checkValue };
}
