// The swarm driver's side of staged releases: the files are placed as for every driver (restore
// drills start them locally), the original upload is kept beside them for tasks to fetch, and which
// directory holds each release the endpoint may serve (a staged or started release, or one a running
// job reads).
import { SvcError } from '../../src/core/errors.js';
import { platformPackageDir } from '../platform-package-dir.js';
import { prepareReleaseDir, removeReleaseDir } from '../prepare-release-dir.js';
import type { ReleaseArtifact } from '../release-driver.js';
import { dropArtifact, keepArtifact, KeptArtifacts } from './kept-artifacts.js';
import type { LocatePath } from './swarm-jobs.js';

export class SwarmReleaseFiles {
  readonly artifacts = new KeptArtifacts();
  private readonly dirs = new Map<string, string>();

  constructor(
    private readonly deps: {
      locate: LocatePath;
      jobReleaseDir: (releaseId: string) => string | undefined;
      releaseDirOf: (projectId: string, releaseId: string) => string;
    },
  ) {}

  /** `releaseDir` holds `releaseId` (its kept artifact lies beside it). */
  remember(releaseId: string, releaseDir: string): void {
    this.dirs.set(releaseId, releaseDir);
  }

  /**
   * What the release endpoint serves for a release of `projectId`, or null. After a control-plane restart
   * swarm may start tasks of a release this process never staged (a rollback boot recovery asks for,
   * a restarted task): its kept bytes lie where the project's layout puts them.
   */
  async artifactFor(releaseId: string, projectId: string): Promise<{ path: string; sha256: string } | null> {
    const dir = this.dirs.get(releaseId) ?? this.deps.jobReleaseDir(releaseId) ?? this.deps.releaseDirOf(projectId, releaseId);
    return dir === undefined ? null : this.artifacts.find(dir);
  }

  async stage(input: { releaseDir: string; place: (dir: string) => Promise<void>; artifact?: ReleaseArtifact }): Promise<void> {
    if (!input.artifact)
      throw new SvcError(
        'SVC_SWARM_ARTIFACT_MISSING',
        `The pipeline handed no original artifact for ${input.releaseDir}; the swarm driver runs releases from their original bytes.`,
      );
    await input.place(input.releaseDir);
    await prepareReleaseDir({ releaseDir: input.releaseDir, platformPackageDir: platformPackageDir() });
    await keepArtifact(input.releaseDir, input.artifact);
    this.artifacts.remember(input.releaseDir, input.artifact.sha256);
    const located = this.deps.locate(input.releaseDir);
    if (located?.releaseId) this.remember(located.releaseId, input.releaseDir);
  }

  async unstage(releaseDir: string): Promise<void> {
    this.artifacts.forget(releaseDir);
    await removeReleaseDir(releaseDir);
    await dropArtifact(releaseDir);
  }
}
