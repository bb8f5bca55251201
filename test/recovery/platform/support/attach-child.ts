// Child process for the SIGTERM test: attaches platform recovery from SVC_RECOVERY_DIR/KEY (export only
// on flush/close), commits N runtime mutations, prints the committed sequence and waits for a signal.
// Registers no signal handler of its own, so attachPlatformRecovery must flush and then re-raise.
import { attachPlatformRecovery } from '../../../../src/operations.js';
import { openApp } from '../../support/recovery-backend.js';

const [dbPath, count] = process.argv.slice(2) as [string, string];
const { db, engine } = openApp(dbPath);
const recovery = await attachPlatformRecovery(db, { exportIntervalMs: false });
if (!recovery) throw new Error('recovery was not configured');
for (let i = 0; i < Number(count); i++) engine.runMutation('items/add', { name: `item ${i}`, qty: i }, null);
process.stdout.write(`${JSON.stringify(recovery.status())}\n`);
setInterval(() => undefined, 1000);
