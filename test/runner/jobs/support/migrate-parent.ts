// A stand-in control plane for the migration child test: runs one migration off-thread and prints
// the child's pid; the test kills this process with SIGKILL while the migration runs.
import { migrateOffThread } from '../../../../runner/jobs/migrate-off-thread.js';

const [databasePath, migrationsDir] = process.argv.slice(2) as [string, string];
console.log('started');
await migrateOffThread({ databasePath, migrationsDir, allowUnsafeMigrations: false, operatorAllowsUnsafe: false });
console.log('finished');
