// Builds the default app image locally from the host's own Node runtime (no registry needed):
// node + the shared libraries `ldd` names + CA certificates + a passwd with a non-root user,
// tarred and imported with `podman import --change 'USER 10001:10001'`.
import { chmodSync, copyFileSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { command, type Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { execChecked } from '../../src/core/exec.js';
import { buildImportCommand, defaultContainerLimits, defaultPodmanGlobal, type PodmanGlobal } from './podman-args.js';

/** The image name used when SVC_CONTAINER_IMAGE is not set. */
export const DEFAULT_CONTAINER_IMAGE = 'localhost/svc-node:20';

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

/** `tar` of a directory's contents, numeric owners, as a Command. */
export function buildTarCommand(rootDir: string, tarPath: string): Command {
  return command('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', rootDir, '-cf', tarPath, '.']);
}

export interface BuildNodeImageOptions {
  image?: string;
  nodePath?: string;
  user?: string;
  podman?: Partial<PodmanGlobal>;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** Assemble the minimal root filesystem and import it; returns the image name. */
export async function buildNodeImage(options: BuildNodeImageOptions = {}): Promise<string> {
  const image = options.image ?? DEFAULT_CONTAINER_IMAGE;
  const nodePath = realpathSync(options.nodePath ?? process.execPath);
  const user = options.user ?? defaultContainerLimits.user;
  const global = { ...defaultPodmanGlobal, ...options.podman };
  const log = options.log ?? (() => undefined);
  const work = await mkdtemp(join(tmpdir(), 'svc-image-'));
  try {
    const root = join(work, 'root');
    const libs = parseLddOutput((await execChecked(command('ldd', [nodePath]))).stdout);
    if (libs.length === 0) throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `ldd found no libraries for ${nodePath}`);
    const copy = (src: string, dst: string): void => {
      mkdirSync(dirname(join(root, dst)), { recursive: true });
      copyFileSync(realpathSync(src), join(root, dst));
    };
    copy(nodePath, '/usr/bin/node');
    chmodSync(join(root, 'usr/bin/node'), 0o755);
    for (const lib of libs) copy(lib, lib);
    const ca = caBundles.find((path) => existsSync(path));
    if (ca) copy(ca, '/etc/ssl/certs/ca-certificates.crt');
    const accounts = imageAccounts(user);
    writeFileSync(join(root, 'etc/passwd'), accounts.passwd);
    writeFileSync(join(root, 'etc/group'), accounts.group);
    for (const dir of ['app', 'data', 'tmp']) mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    log(`root filesystem: node ${nodePath}, ${libs.length} libraries${ca ? ', CA bundle' : ''}`);
    const tarPath = join(work, 'rootfs.tar');
    await execChecked(buildTarCommand(root, tarPath));
    await execChecked(buildImportCommand(global, tarPath, image, user));
    log(`imported ${image}`);
    return image;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
