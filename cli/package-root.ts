import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../src/core/package-name.js';

let cached: { root: string; version: string } | undefined;

/** The svc package directory and version, found by walking up from this file (works from cli/ and dist/cli/). */
export function packageRoot(): { root: string; version: string } {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      // dist/ may hold a copy of package.json (JSON imports); the package root is where bin/svc.js lives.
      if (pkg.name === PACKAGE_NAME && existsSync(join(dir, 'bin', 'svc.js'))) return (cached = { root: dir, version: pkg.version ?? '0.0.0' });
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('svc package.json not found above the CLI');
    dir = parent;
  }
}
