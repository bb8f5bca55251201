// A second writer process for the fencing test: opens the database file with its own connection,
// answers the guard itself (as a careless tool might) and updates every item.
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]!);
db.function('svc_recovery_attached', () => 1);
db.prepare(`UPDATE items SET doc = json_set(doc, '$.qty', 99)`).run();
db.close();
