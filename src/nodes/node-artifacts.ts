// The original compressed artifact bytes of releases that converge on runner nodes, kept by digest
// under `<data>/node-artifacts/<projectId>/<sha256>.svc-deploy` (written atomically, read-only to nodes).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile } from '../core/atomic-write.js';
import { SvcError } from '../core/errors.js';

/** Where artifact bytes of node releases live. */
export interface NodeArtifactStore {
  /** Durably keep the bytes (checked against their digest first). */
  put(projectId: string, sha256: string, bytes: Buffer): Promise<void>;
  /** Whether the bytes of this digest are kept. */
  has(projectId: string, sha256: string): boolean;
  /** Path of the kept file (callers stream it). */
  path(projectId: string, sha256: string): string;
}

/** The artifact store under a platform data directory. */
export function nodeArtifactStore(dataDir: string): NodeArtifactStore {
  const path = (projectId: string, sha256: string): string => {
    if (!/^[0-9a-f]{64}$/.test(sha256) || !/^[A-Za-z0-9_-]{1,128}$/.test(projectId)) throw new SvcError('SVC_VALIDATION', 'Invalid artifact reference.');
    return join(dataDir, 'node-artifacts', projectId, `${sha256}.svc-deploy`);
  };
  return {
    path,
    has: (projectId, sha256) => existsSync(path(projectId, sha256)),
    async put(projectId, sha256, bytes) {
      if (createHash('sha256').update(bytes).digest('hex') !== sha256)
        throw new SvcError('SVC_ARTIFACT_DIGEST_MISMATCH', 'The kept artifact bytes do not match their digest.');
      if (existsSync(path(projectId, sha256))) return;
      await atomicWriteFile(path(projectId, sha256), bytes, { mode: 0o600, mkdirs: true });
    },
  };
}
