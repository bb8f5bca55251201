// Child-process entry: `node --import tsx tasks-server-main.ts <db-path> [port]`; prints {"port":n} when listening.
import { startTasksServer } from './start-tasks-server.js';

const [dbPath, port] = process.argv.slice(2);
const server = await startTasksServer(dbPath!, { port: Number(port ?? 0), live: { heartbeatMs: 200 } });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
