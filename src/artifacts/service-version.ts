import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../core/package-name.js';

/**
 * The version of svc's own package.json, found by walking up from this file (works from src/, dist/src/
 * and a bundle inside the package). Read at runtime rather than imported so no JSON copy lands in dist/.
 */
export function readServiceVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not ours or unreadable: keep walking
    }
  }
  return '0.0.0-unknown';
}
