// Runs inside the hardened container and reports what it can and cannot do.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';

function attempt(fn) {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error.code ?? String(error);
  }
}
function read(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}
const status = readFileSync('/proc/self/status', 'utf8');
const field = (name) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim() ?? null;
const report = {
  uid: process.getuid(),
  gid: process.getgid(),
  capEff: field('CapEff'),
  capBnd: field('CapBnd'),
  noNewPrivs: field('NoNewPrivs'),
  writeRoot: attempt(() => writeFileSync('/probe-root', 'x')),
  writeRelease: attempt(() => writeFileSync('/app/probe-release', 'x')),
  writeData: attempt(() => writeFileSync('/data/probe-data', 'x')),
  writeTmp: attempt(() => writeFileSync('/tmp/probe-tmp', 'x')),
  pidsMax: read('/sys/fs/cgroup/pids.max') ?? read('/sys/fs/cgroup/pids/pids.max'),
  memoryMax: read('/sys/fs/cgroup/memory.max') ?? read('/sys/fs/cgroup/memory/memory.limit_in_bytes'),
  secret: process.env.PROBE_SECRET ?? null,
  masterKey: process.env.SVC_PLATFORM_MASTER_KEY ?? null,
  dataDir: process.env.SVC_DATA_DIR,
  pid1: read('/proc/1/comm'),
};
// Try to exceed the PID limit: start up to 20 node children (each has several threads).
async function fork() {
  const kids = [];
  const failed = [];
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => {
      const child = spawn('/usr/bin/node', ['-e', 'setTimeout(() => {}, 3000)'], { stdio: 'ignore' });
      child.once('spawn', () => resolve(kids.push(child)));
      child.once('error', (error) => resolve(failed.push(error.code)));
    });
  }
  for (const child of kids) child.kill('SIGKILL');
  return { started: kids.length, failed };
}
// Try to exceed the memory limit in a child: the kernel kills it.
function hog() {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/node', ['-e', 'const a = []; for (;;) a.push(Buffer.alloc(16 << 20, 1));'], { stdio: 'ignore' });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}
createServer(async (req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/fork') return res.end(JSON.stringify(await fork()));
  if (req.url === '/hog') return res.end(JSON.stringify(await hog()));
  res.end(JSON.stringify(report));
}).listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => {
  writeFileSync('/data/got-sigterm', 'yes');
  process.exit(0);
});
