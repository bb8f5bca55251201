// Runs inside the hardened container and reports what it can and cannot do.
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
createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(report));
}).listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => {
  writeFileSync('/data/got-sigterm', 'yes');
  process.exit(0);
});
