// The one image every swarm task runs, built locally and imported into the engine (no registry):
// the podman image's root filesystem (runner/container/node-rootfs.ts: node, its libraries, CA
// bundle, the non-root app user, no shell) plus the svc platform package at /svc/platform (its
// package.json, dist/ and only its production node_modules, native builds included, so a release
// that links node_modules/@svc-dev/svc → /svc/platform resolves @svc-dev/svc/runtime and @svc-dev/svc/sqlite) and the task
// entrypoint /svc/swarm-entrypoint.mjs. Tasks pin it by the `sha256:` id this returns. The image is
// labelled with the hash of its inputs (swarm-image-inputs.ts); an image with the same label is
// reused rather than built again.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { execChecked } from '../../src/core/exec.js';
import { assembleNodeRootfs, writeRootfsTar, copyIntoRoot, parseLddOutput } from '../container/node-rootfs.js';
import { defaultContainerLimits } from '../container/podman-args.js';
import { platformPackageDir } from '../platform-package-dir.js';
import type { EngineClient } from './engine-client.js';
import { productionClosure, type PackageManifest } from './production-closure.js';
import { IMAGE_INPUTS_LABEL, swarmImageInputsHash } from './swarm-image-inputs.js';

/** Where the platform package sits inside the image (the target of a release's node_modules/@svc-dev/svc link). */
export const IMAGE_PLATFORM_DIR = '/svc/platform';
/** The task entrypoint: a shim into the platform package's compiled entrypoint. */
export const IMAGE_ENTRYPOINT = '/svc/swarm-entrypoint.mjs';
export const ENTRYPOINT_SHIM = `import '${IMAGE_PLATFORM_DIR}/dist/runner/swarm/entrypoint/main.js';\n`;

export interface BuildSwarmImageOptions {
  nodePath?: string;
  /** The svc package to put at /svc/platform; default: this installation. */
  packageDir?: string;
  /** A readable name for the image (tasks still pin the id). */
  repository?: string;
  tag?: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Use an image built from the same inputs when the engine has one (default true). */
  reuse?: boolean;
}

/** Reads `<packageDir>/<dir>/package.json`, or null. */
function manifestReader(packageDir: string): (dir: string) => PackageManifest | null {
  return (dir) => {
    const file = join(packageDir, dir, 'package.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageManifest) : null;
  };
}

/** Native addons (`*.node`) under `dir`. */
function nativeAddons(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.node'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Copy package.json, dist/ and the production closure of node_modules to `target`; returns the package count. */
function copyPlatformPackage(packageDir: string, target: string): number {
  if (!existsSync(join(packageDir, 'dist'))) throw new SvcError('SVC_RUNNER_CONFIG', `${packageDir} has no dist/: build the svc package first (npm run build)`);
  mkdirSync(target, { recursive: true });
  cpSync(join(packageDir, 'package.json'), join(target, 'package.json'));
  cpSync(join(packageDir, 'dist'), join(target, 'dist'), { recursive: true });
  const dirs = productionClosure(manifestReader(packageDir));
  for (const dir of dirs) {
    const source = realpathSync(join(packageDir, dir));
    const nested = join(source, 'node_modules');
    // Nested packages are in the closure on their own when they are needed at all.
    cpSync(source, join(target, dir), { recursive: true, filter: (path) => path !== nested });
  }
  return dirs.length;
}

/**
 * The image id (`sha256:<hex>`) for this installation: an image the engine has from the same inputs,
 * or the root filesystem built now and imported with `USER <app user>` and the inputs label.
 */
export async function buildSwarmImage(client: EngineClient, options: BuildSwarmImageOptions = {}): Promise<{ imageId: string; reused: boolean }> {
  const packageDir = realpathSync(options.packageDir ?? platformPackageDir());
  const user = defaultContainerLimits.user;
  const log = options.log ?? (() => undefined);
  if (!existsSync(join(packageDir, 'dist'))) throw new SvcError('SVC_RUNNER_CONFIG', `${packageDir} has no dist/: build the svc package first (npm run build)`);
  const inputs = await swarmImageInputsHash({ nodePath: options.nodePath ?? process.execPath, packageDir, entrypointShim: ENTRYPOINT_SHIM, user });
  if (options.reuse !== false) {
    const [found] = await client.findImages({ [IMAGE_INPUTS_LABEL]: inputs });
    if (found) {
      log(`reusing ${found.id}, built from the same inputs (${IMAGE_INPUTS_LABEL}=${inputs})`);
      return { imageId: found.id, reused: true };
    }
  }
  const work = await mkdtemp(join(tmpdir(), 'svc-swarm-image-'));
  try {
    const root = join(work, 'root');
    const rootfs = await assembleNodeRootfs(root, { ...(options.nodePath ? { nodePath: options.nodePath } : {}), user });
    const platform = join(root, IMAGE_PLATFORM_DIR);
    const packages = copyPlatformPackage(packageDir, platform);
    // Native addons (better-sqlite3) may need host libraries node itself does not.
    const addons = nativeAddons(join(platform, 'node_modules'));
    for (const addon of addons) {
      for (const lib of parseLddOutput((await execChecked(command('ldd', [addon]))).stdout)) {
        // Libraries an addon ships itself ($ORIGIN paths) are already inside the copied package.
        if (!lib.startsWith(`${root}/`) && !existsSync(join(root, lib))) copyIntoRoot(root, lib, lib);
      }
    }
    writeFileSync(join(root, IMAGE_ENTRYPOINT), ENTRYPOINT_SHIM);
    // Docker gives a tmpfs (and an empty volume) mounted over an image directory that directory's
    // owner and mode: the app user must write the release tmpfs (/app) and the project volume (/data).
    for (const dir of ['app', 'data']) chmodSync(join(root, dir), 0o1777);
    log(
      `root filesystem: node ${rootfs.nodePath}, ${rootfs.libraries} libraries; svc from ${packageDir} with ${packages} production packages, ${addons.length} native addons`,
    );
    const tarPath = join(work, 'rootfs.tar');
    await writeRootfsTar(root, tarPath);
    const repository = options.repository ?? 'svc-swarm-node';
    const tag = options.tag ?? (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'latest';
    const imageId = await client.importImage(tarPath, { repository, tag, changes: [`USER ${user}`, `LABEL ${IMAGE_INPUTS_LABEL}=${inputs}`] });
    log(`imported ${repository}:${tag} as ${imageId}`);
    return { imageId, reused: false };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
