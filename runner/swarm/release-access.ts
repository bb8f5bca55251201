// Which swarm tasks may fetch from the release endpoint: the credentials the driver mints (one per
// release generation, one per job run) and their revocation. The HMAC key is kept in the control
// plane's data directory, so credentials in running services stay valid across control-plane restarts.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { atomicWriteFile } from '../../src/core/atomic-write.js';
import type { Clock } from '../../src/core/clock.js';
import { mintCredential, type CredentialClaims } from './release-credentials.js';

const KEY_BYTES = 32;

/** The credential key at `path`, created (32 random bytes, mode 0600) the first time. */
export async function loadCredentialKey(path: string): Promise<Buffer> {
  const existing = await readFile(path).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
  if (existing && existing.length >= KEY_BYTES) return existing;
  const key = randomBytes(KEY_BYTES);
  await atomicWriteFile(path, key, { mode: 0o600, mkdirs: true });
  return key;
}

/**
 * Live generations per project and running jobs. A release credential stays valid while its
 * generation may still start tasks (the service's spec, the spec a rollback returns to, a canary);
 * a job credential while its job runs. Everything else is revoked.
 */
export class ReleaseAccess {
  private readonly live = new Map<string, Set<number>>();
  private readonly jobs = new Set<string>();

  constructor(
    private readonly key: Buffer,
    private readonly clock: Clock,
  ) {}

  get credentialKey(): Buffer {
    return this.key;
  }

  /** A credential for the tasks of `generation` of `releaseId`; the generation becomes live. */
  mintRelease(projectId: string, releaseId: string, generation: number): string {
    this.allow(projectId, generation);
    return mintCredential({ key: this.key, clock: this.clock, scope: 'release', id: releaseId, project: projectId, generation }).token;
  }

  /** A credential for one job run; valid until finishJob. */
  mintJob(projectId: string, jobId: string): string {
    this.jobs.add(jobId);
    return mintCredential({ key: this.key, clock: this.clock, scope: 'job', id: jobId, project: projectId, generation: 1 }).token;
  }

  allow(projectId: string, generation: number): void {
    let set = this.live.get(projectId);
    if (!set) this.live.set(projectId, (set = new Set()));
    set.add(generation);
  }

  /** Keep exactly these generations of a project live (after a serve, a canary's end, recovery). */
  keepOnly(projectId: string, generations: Iterable<number>): void {
    this.live.set(projectId, new Set(generations));
  }

  revokeProject(projectId: string): void {
    this.live.delete(projectId);
  }

  finishJob(jobId: string): void {
    this.jobs.delete(jobId);
  }

  isRevoked(claims: CredentialClaims): boolean {
    if (claims.scope === 'job') return !this.jobs.has(claims.id);
    return !(this.live.get(claims.project)?.has(claims.generation) ?? false);
  }
}
