import { join } from 'node:path';
import { atomicWriteFile } from '../core/atomic-write.js';
import { ARTIFACT_FILE_EXTENSION } from './document.js';
import type { PackedArtifact } from './pack-artifact.js';

/** Directory (relative to the app) where dry runs keep artifacts. */
const LOCAL_ARTIFACT_DIR = join('.svc', 'artifacts');

/** Atomically write `<appDir>/.svc/artifacts/<digest>.svc.gz` and return its path. */
export async function writeArtifactFile(appDir: string, packed: PackedArtifact): Promise<string> {
  const path = join(appDir, LOCAL_ARTIFACT_DIR, `${packed.digest}${ARTIFACT_FILE_EXTENSION}`);
  await atomicWriteFile(path, packed.bytes, { mkdirs: true, mode: 0o644 });
  return path;
}
