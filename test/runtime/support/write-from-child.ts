// Child process for cross-process tests: opens the same database file and writes through the runtime.
// argv: <path> <count> [holdMs]  — with holdMs, holds the write lock that long inside the transaction.
import { createEngine, openDatabase } from '../../../src/runtime/index.js';
import { backend } from './tasks-backend.js';

const [path, countText, holdText] = process.argv.slice(2);
const db = openDatabase(backend.schema, { path: path!, pollIntervalMs: false });
const engine = createEngine(backend, db);
const ids: string[] = [];
const holdMs = Number(holdText ?? '0');
if (holdMs > 0) {
  db.onBeforeCommit(() => {
    process.stdout.write('locked\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
  });
}
for (let i = 0; i < Number(countText); i++) ids.push(engine.runMutation<string>('notes/add', { title: `child ${i}`, priority: i }, null).value);
process.stdout.write(`${JSON.stringify({ ids, revision: db.revision() })}\n`);
db.close();
