// The original svc-deploy/1 bytes of every staged release, kept beside its directory
// (`<releaseDir>.svc-deploy`, mode 0600) for as long as the release is: swarm tasks fetch them by
// digest through the release endpoint, at every deploy, restart and rollback to an older release.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { atomicWriteFile } from '../../src/core/atomic-write.js';
import { SvcError } from '../../src/core/errors.js';
import { keptArtifactPath, type ReleaseArtifact } from '../release-driver.js';

/** Store a release's original bytes atomically beside its directory, after checking they are what the pipeline verified. */
export async function keepArtifact(releaseDir: string, artifact: ReleaseArtifact): Promise<void> {
  const digest = createHash('sha256').update(artifact.bytes).digest('hex');
  if (digest !== artifact.sha256) throw new SvcError('SVC_INTERNAL', `The kept bytes of ${releaseDir} hash to ${digest}, not ${artifact.sha256}`);
  await atomicWriteFile(keptArtifactPath(releaseDir), artifact.bytes, { mode: 0o600 });
}

/** Remove a release's kept bytes (no error when there are none). */
export async function dropArtifact(releaseDir: string): Promise<void> {
  await rm(keptArtifactPath(releaseDir), { force: true });
}

/** SHA-256 of a file, streamed. */
function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Reads kept artifacts by release directory; digests are computed once per file (kept files never change). */
export class KeptArtifacts {
  private readonly digests = new Map<string, string>();

  /** Remember a digest the pipeline verified, so the file need not be hashed again. */
  remember(releaseDir: string, sha256: string): void {
    this.digests.set(keptArtifactPath(releaseDir), sha256);
  }

  forget(releaseDir: string): void {
    this.digests.delete(keptArtifactPath(releaseDir));
  }

  /** Path and digest of a release's kept bytes, or null when there are none. */
  async find(releaseDir: string): Promise<{ path: string; sha256: string } | null> {
    const path = keptArtifactPath(releaseDir);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    let sha256 = this.digests.get(path);
    if (sha256 === undefined) {
      sha256 = await hashFile(path);
      this.digests.set(path, sha256);
    }
    return { path, sha256 };
  }

  /** Like find, but a release without kept bytes (staged before the swarm driver) fails with SVC_SWARM_ARTIFACT_MISSING. */
  async require(releaseDir: string, releaseId: string): Promise<{ path: string; sha256: string }> {
    const found = await this.find(releaseDir);
    if (!found) {
      throw new SvcError(
        'SVC_SWARM_ARTIFACT_MISSING',
        `Release ${releaseId} has no kept artifact (${keptArtifactPath(releaseDir)}): it was staged by another driver, so swarm tasks cannot fetch it.`,
      );
    }
    return found;
  }
}
