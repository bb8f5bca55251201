// `node dist/src/secrets/rotate-master-key-main.js --data <dir>` (or via tsx from src/): rotate the
// platform master key with the control plane stopped. Key file mode: a new key is generated and
// replaces <data>/master.key. Environment mode: the current key is SVC_PLATFORM_MASTER_KEY and the
// new one SVC_NEW_PLATFORM_MASTER_KEY; set SVC_PLATFORM_MASTER_KEY to the new value afterwards.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { openControlDb } from '../core/control-db.js';
import { isSvcError } from '../core/errors.js';
import { rewrapBackupKeys } from '../backups/index.js';
import { rewrapRecoveryKeys } from '../recovery/platform/index.js';
import { rotateMasterKey } from './rotate-master-key.js';

/** Run the rotation; returns the process exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let data: string;
  try {
    const { values } = parseArgs({ args: argv, options: { data: { type: 'string' } }, strict: true });
    data = resolve(values.data ?? env.SVC_DATA_DIR ?? '.svc-data');
  } catch (error) {
    process.stderr.write(`rotate-master-key: ${(error as Error).message}\nUsage: rotate-master-key --data <dir>\n`);
    return 2;
  }
  const db = openControlDb(resolve(data, 'control.db'));
  try {
    const newKey = env.SVC_NEW_PLATFORM_MASTER_KEY;
    const result = await rotateMasterKey({
      db,
      dataDir: data,
      env,
      ...(newKey ? { newKey } : {}),
      rewrappers: [rewrapBackupKeys, rewrapRecoveryKeys],
      now: Date.now(),
    });
    process.stdout.write(
      `Rotated the master key: ${result.secrets} secrets re-encrypted, ${result.rewrapped} backup and recovery keys re-wrapped.\n` +
        (result.source === 'env'
          ? 'Now set SVC_PLATFORM_MASTER_KEY to the value of SVC_NEW_PLATFORM_MASTER_KEY before starting svc-platform.\n'
          : `The new key is in ${resolve(data, 'master.key')}; back it up.\n`),
    );
    return 0;
  } catch (error) {
    process.stderr.write(`rotate-master-key: ${isSvcError(error) ? `${error.message} (${error.code})` : String(error)}\n`);
    return 1;
  } finally {
    db.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
