// Builds the default app image locally from the host's own Node runtime (no registry needed): the
// root filesystem of node-rootfs.ts, tarred and imported with `podman import --change 'USER 10001:10001'`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execChecked } from '../../src/core/exec.js';
import { assembleNodeRootfs, writeRootfsTar } from './node-rootfs.js';
import { buildImportCommand, DEFAULT_CONTAINER_IMAGE, defaultContainerLimits, defaultPodmanGlobal, type PodmanGlobal } from './podman-args.js';

export { imageAccounts, parseLddOutput } from './node-rootfs.js';
// The settings read the default name from podman-args.ts: importing this file loads tar (node-rootfs.ts).
export { DEFAULT_CONTAINER_IMAGE } from './podman-args.js';

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
  const user = options.user ?? defaultContainerLimits.user;
  const global = { ...defaultPodmanGlobal, ...options.podman };
  const log = options.log ?? (() => undefined);
  const work = await mkdtemp(join(tmpdir(), 'svc-image-'));
  try {
    const root = join(work, 'root');
    const rootfs = await assembleNodeRootfs(root, { ...(options.nodePath ? { nodePath: options.nodePath } : {}), user });
    log(`root filesystem: node ${rootfs.nodePath}, ${rootfs.libraries} libraries${rootfs.caBundle ? ', CA bundle' : ''}`);
    const tarPath = join(work, 'rootfs.tar');
    await writeRootfsTar(root, tarPath);
    await execChecked(buildImportCommand(global, tarPath, image, user));
    log(`imported ${image}`);
    return image;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
