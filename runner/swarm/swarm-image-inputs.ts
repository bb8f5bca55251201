// What the swarm base image is made of, as one hash: the node binary, the svc package (package.json,
// package-lock.json, every file of dist/, the name and version of each production dependency), the
// entrypoint shim, the app user and the layout of the image. The image carries it as a label, so an
// image built from the same inputs is found again instead of being built (about 10 s and 300 MB) at
// every control-plane start.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { productionClosure, type PackageManifest } from './production-closure.js';

/** The image label that carries the hash. */
export const IMAGE_INPUTS_LABEL = 'svc.image-inputs';
/** Bump when the image is assembled differently from the same inputs. */
const IMAGE_LAYOUT = 'svc-swarm-image/1';

export interface SwarmImageInputs {
  nodePath: string;
  packageDir: string;
  entrypointShim: string;
  user: string;
}

async function hashFile(hash: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** sha256 (hex) over everything the image is built from. */
export async function swarmImageInputsHash(inputs: SwarmImageInputs): Promise<string> {
  const hash = createHash('sha256');
  const part = (name: string, value: string | Buffer): void => {
    hash.update(`${name}\0${Buffer.byteLength(value)}\0`);
    hash.update(value);
  };
  part('layout', IMAGE_LAYOUT);
  part('user', inputs.user);
  part('entrypoint', inputs.entrypointShim);
  part('node', 'binary');
  await hashFile(hash, realpathSync(inputs.nodePath));
  for (const file of ['package.json', 'package-lock.json']) {
    const path = join(inputs.packageDir, file);
    part(file, existsSync(path) ? readFileSync(path) : '');
  }
  for (const file of filesUnder(join(inputs.packageDir, 'dist'))) {
    part('dist', relative(inputs.packageDir, file));
    await hashFile(hash, file);
  }
  const manifest = (dir: string): PackageManifest | null => {
    const file = join(inputs.packageDir, dir, 'package.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageManifest) : null;
  };
  for (const dir of productionClosure(manifest).sort()) part('dependency', `${dir}@${String((manifest(dir) as { version?: unknown } | null)?.version ?? '')}`);
  return hash.digest('hex');
}
