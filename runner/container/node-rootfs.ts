// The minimal root filesystem both local images are made of (the podman image and the swarm image):
// the host's own node + the shared libraries `ldd` names + CA certificates + a passwd/group with
// the non-root app user, and the empty /app, /data and /tmp. No shell, no package manager.
import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { create as createTar } from 'tar';
import { command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { execChecked } from '../../src/core/exec.js';

/** CA bundle locations tried in order (Debian, then Red Hat). */
const caBundles = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/** Absolute library paths from `ldd` output (pure; `linux-vdso` and other virtual entries skipped). */
export function parseLddOutput(output: string): string[] {
  const libs = new Set<string>();
  for (const line of output.split('\n')) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (match?.[1]) libs.add(match[1]);
  }
  return [...libs].sort();
}

/** `/etc/passwd` and `/etc/group` of the image: root (no login) and the app user whose home is /data. */
export function imageAccounts(user: string): { passwd: string; group: string } {
  const [uid, gid] = user.split(':');
  return {
    passwd: `root:x:0:0:root:/root:/sbin/nologin\napp:x:${uid}:${gid}:svc app:/data:/sbin/nologin\n`,
    group: `root:x:0:\napp:x:${gid}:\n`,
  };
}

/**
 * Tar a directory's contents for `podman import` / `docker import`: every entry owned by 0:0 whoever
 * builds it, modes kept as they are (node-tar's portable mode would drop the sticky, world-writable /tmp).
 */
export async function writeRootfsTar(rootDir: string, tarPath: string): Promise<void> {
  await createTar(
    {
      cwd: rootDir,
      file: tarPath,
      onWriteEntry: (entry) => {
        if (entry.stat) Object.assign(entry.stat, { uid: 0, gid: 0 });
      },
    },
    ['.'],
  );
}

/** Copy one host file (symlinks resolved) to the same or another path inside `root`. */
export function copyIntoRoot(root: string, src: string, dst: string): void {
  mkdirSync(dirname(join(root, dst)), { recursive: true });
  copyFileSync(realpathSync(src), join(root, dst));
}

export interface NodeRootfs {
  /** The node binary that was copied (symlinks resolved). */
  nodePath: string;
  libraries: number;
  caBundle: boolean;
}

/** Fill `root` (an empty directory) with node, its libraries, CA bundle, accounts and the app dirs. */
export async function assembleNodeRootfs(root: string, options: { nodePath?: string; user: string }): Promise<NodeRootfs> {
  const nodePath = realpathSync(options.nodePath ?? process.execPath);
  const libs = parseLddOutput((await execChecked(command('ldd', [nodePath]))).stdout);
  if (libs.length === 0) throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `ldd found no libraries for ${nodePath}`);
  copyIntoRoot(root, nodePath, '/usr/bin/node');
  chmodSync(join(root, 'usr/bin/node'), 0o755);
  for (const lib of libs) copyIntoRoot(root, lib, lib);
  const ca = caBundles.find((path) => existsSync(path));
  if (ca) copyIntoRoot(root, ca, '/etc/ssl/certs/ca-certificates.crt');
  const accounts = imageAccounts(options.user);
  writeFileSync(join(root, 'etc/passwd'), accounts.passwd);
  writeFileSync(join(root, 'etc/group'), accounts.group);
  for (const dir of ['app', 'data', 'tmp']) mkdirSync(join(root, dir), { recursive: true });
  chmodSync(join(root, 'tmp'), 0o1777);
  return { nodePath, libraries: libs.length, caBundle: ca !== undefined };
}
