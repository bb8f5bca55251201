// Child process for the kill -9 test: commits rows (id = sequence) as fast as it can with recovery
// exporting every 10 ms, and reports progress on stdout until it is killed.
import { openPointInTimeRecovery } from '../../../src/recovery/open-point-in-time-recovery.js';
import { openRawHost } from './raw-host.js';

const [dbPath, directory] = process.argv.slice(2) as [string, string];
const host = openRawHost(dbPath);
host.sqlite.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
const recovery = await openPointInTimeRecovery(host, { directory, encryptionKey: Buffer.alloc(32, 7), exportIntervalMs: 10 });
const insert = host.sqlite.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
let next = recovery.status().committedThrough + 1;
for (;;) {
  for (let i = 0; i < 10; i++, next++) host.write(() => insert.run(next, `row ${next} ${'p'.repeat(200)}`));
  const status = recovery.status();
  process.stdout.write(`${JSON.stringify(status)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 1));
}
