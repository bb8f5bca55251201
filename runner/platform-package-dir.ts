// The installed svc package, which releases link under node_modules/ so that apps resolve
// `@svc-dev/svc/runtime` (and `svc/runtime`, the name releases built before the rename use).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../src/core/package-name.js';

let packageDir: string | undefined;

/** Root of the installed svc package (linked into releases, see prepare-release-dir.ts). */
export function platformPackageDir(): string {
  if (packageDir) return packageDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    // An installed package has bin/ and dist/; the copy in the swarm image (/svc/platform) only dist/.
    if (existsSync(file) && (existsSync(join(dir, 'bin')) || existsSync(join(dir, 'dist')))) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string };
      if (pkg.name === PACKAGE_NAME) return (packageDir = dir);
    }
  }
  throw new Error('svc package root not found');
}
