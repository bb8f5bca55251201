// Test app: HTTP server on PORT/HOST; /healthz, /env/<NAME>, /argv, /pid; logs to stdout and stderr.
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { setTimeout } from 'node:timers';

const status = Number(process.env.HEALTH_STATUS ?? 200);
let grandchild = null;
if (process.env.SPAWN_GRANDCHILD === '1') {
  // A member of the app's process group that must die with it.
  grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (code, body) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/healthz') return send(status, { ok: status < 300 });
  if (url.pathname.startsWith('/env/')) return send(200, { value: process.env[url.pathname.slice(5)] ?? null });
  if (url.pathname === '/env') return send(200, { env: process.env });
  if (url.pathname === '/argv') return send(200, { argv: process.argv, execArgv: process.execArgv, cwd: process.cwd() });
  if (url.pathname === '/pids') return send(200, { pid: process.pid, grandchild: grandchild?.pid ?? null });
  if (url.pathname === '/log') {
    console.log(url.searchParams.get('line') ?? 'log line');
    return send(200, { ok: true });
  }
  if (url.pathname === '/crash') {
    send(200, { ok: true });
    setTimeout(() => process.exit(3), 10);
    return;
  }
  send(404, {});
});
if (process.env.IGNORE_SIGTERM === '1') process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
else
  process.on('SIGTERM', () => {
    console.log('got SIGTERM, closing');
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 200).unref();
  });
const delay = Number(process.env.START_DELAY_MS ?? 0);
setTimeout(() => {
  server.listen(Number(process.env.PORT), process.env.HOST, () => {
    console.log(`listening on ${process.env.HOST}:${process.env.PORT}`);
    console.error('stderr hello');
  });
}, delay);
