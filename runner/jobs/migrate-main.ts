// A child process that applies one release's migrations, so a long migration never blocks the control
// plane's event loop. It receives its options over IPC and answers once with the result or the error.
import { isSvcError } from '../../src/core/errors.js';
import { manualClock } from '../../src/core/clock.js';
import { migrateDatabase, type MigrateOptions } from './apply-migrations.js';

type Request = Omit<MigrateOptions, 'clock'> & { now: number };

// Without a parent there is nobody to answer and the restart will restore the snapshot: stop at once.
const orphaned = (): never => process.exit(1);
process.once('disconnect', orphaned);

process.once('message', (raw) => {
  const { now, ...options } = raw as Request;
  migrateDatabase({ ...options, clock: manualClock(now) })
    .then((result) => process.send!({ ok: true, result }))
    .catch((error: unknown) =>
      process.send!({
        ok: false,
        code: isSvcError(error) ? error.code : 'SVC_MIGRATION_FAILED',
        message: error instanceof Error ? error.message : String(error),
        details: isSvcError(error) ? (error.details ?? null) : null,
      }),
    )
    .finally(() => {
      process.off('disconnect', orphaned);
      process.disconnect();
    });
});
