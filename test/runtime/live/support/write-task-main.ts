// Child-process entry: another process writing the same database file.
// `node --import tsx write-task-main.ts <db-path> <text> <list>`; prints {"revision":n}.
import { createEngine, openDatabase } from '../../../../src/runtime/index.js';
import { backend } from './tasks-backend.js';

const [dbPath, text, list] = process.argv.slice(2);
const db = openDatabase(backend.schema, { path: dbPath!, pollIntervalMs: false });
const run = createEngine(backend, db).runMutation('tasks/add', { text: text!, list: list! }, null);
db.close();
process.stdout.write(`${JSON.stringify({ revision: run.revision })}\n`);
