// A release links the svc package it runs on as `node_modules/@svc-dev/svc` and `node_modules/svc`
// (absolute symlinks to one directory); sandboxes mount that package's parts read-only at the same
// path so the links resolve inside.
import { readlinkSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PLATFORM_IMPORT_NAMES } from './prepare-release-dir.js';

/**
 * The absolute target of a release's platform package link, or null when it has none. A release
 * prepared before the rename has only the `svc` link, so each name is tried in turn.
 */
export function linkedPlatformPackage(releaseDir: string): string | null {
  for (const name of PLATFORM_IMPORT_NAMES) {
    try {
      const target = readlinkSync(join(releaseDir, 'node_modules', name));
      return isAbsolute(target) ? target : null;
    } catch {
      // no link under this name: try the next
    }
  }
  return null;
}
