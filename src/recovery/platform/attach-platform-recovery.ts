// The app-side half of platform recovery (exported from @svc-dev/svc/operations): when the platform enabled
// recovery for the project it starts the app with SVC_RECOVERY_DIR (this start's epoch repository) and
// SVC_RECOVERY_KEY (base64 of the 32-byte project key); this attaches recovery to the runtime database
// and flushes + closes it on SIGTERM/SIGINT, so a stopped app leaves its epoch fully exported.
import { SvcError } from '../../core/errors.js';
import { openPointInTimeRecovery, type PointInTimeRecovery, type RecoveryStatus } from '../open-point-in-time-recovery.js';
import type { PointInTimeRecoveryOptions, RecoveryDatabase } from '../recovery-options.js';

/** Options of attachPlatformRecovery. */
export interface PlatformRecoveryOptions extends Omit<PointInTimeRecoveryOptions, 'directory' | 'encryptionKey'> {
  /** Where SVC_RECOVERY_DIR / SVC_RECOVERY_KEY are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Close (flush) on SIGTERM and SIGINT (default true). Without other listeners the signal is re-raised afterwards. */
  signals?: boolean;
}

/** An attached platform recovery; close() is idempotent — await it before closing the database. */
export interface PlatformRecovery {
  readonly recovery: PointInTimeRecovery;
  readonly directory: string;
  status(): RecoveryStatus;
  flush(): Promise<RecoveryStatus>;
  close(): Promise<void>;
}

/** Attach recovery as the platform configured it; resolves null when the project has recovery off. */
export async function attachPlatformRecovery(database: RecoveryDatabase, options: PlatformRecoveryOptions = {}): Promise<PlatformRecovery | null> {
  const { env = process.env, signals = true, ...rest } = options;
  const directory = env.SVC_RECOVERY_DIR;
  const keyText = env.SVC_RECOVERY_KEY;
  if (!directory && !keyText) return null;
  if (!directory || !keyText) throw new SvcError('SVC_RECOVERY_OPTIONS_INVALID', 'SVC_RECOVERY_DIR and SVC_RECOVERY_KEY must be set together.');
  const key = Buffer.from(keyText, 'base64');
  if (key.length !== 32 || key.toString('base64') !== keyText)
    throw new SvcError('SVC_RECOVERY_KEY_INVALID', 'SVC_RECOVERY_KEY must be the base64 text of exactly 32 bytes.');
  const recovery = await openPointInTimeRecovery(database, { ...rest, directory, encryptionKey: key });
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= recovery.close());
  if (signals) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const handledBefore = process.listenerCount(signal) > 0;
      process.once(signal, () => {
        // Nobody else handles the signal (before attach or now): keep its default meaning once flushed.
        const handled = handledBefore || process.listenerCount(signal) > 0;
        void close()
          .catch((error: unknown) => console.error('svc recovery: close on', signal, 'failed', error))
          .finally(() => {
            if (!handled) process.kill(process.pid, signal);
          });
      });
    }
  }
  return { recovery, directory, status: () => recovery.status(), flush: () => recovery.flush(), close };
}
