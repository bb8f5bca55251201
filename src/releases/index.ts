// Public surface of releases for other features and the composition root.
export { createReleases, createProjectLocks, type ReleasesFeature, type ReleasesOptions } from './releases-feature.js';
export { releasesMigrations } from './release-store.js';
export type { ReleaseRouting, ReleaseUpstream } from './release-routing.js';
export { databasePathOf, locateProjectPath, projectLayout, releaseDirOf, type LocatedPath, type ProjectLayout } from './project-layout.js';
export { deleteReleaseRoutes } from './delete-release-routes.js';
export { deleteReleaseArtifact } from './delete-release.js';
export { describeIsolation } from './describe-isolation.js';
export { logIsolation } from './log-isolation.js';
export { isolationSchema, isolationSummary, type Isolation } from './isolation-contract.js';
// Read access to releases and the observer seam (GitHub reports releases through it).
export { activeReleaseRow, findRelease, getReleaseById, listReleases, releaseConfig, toRelease, type ReleaseRow } from './release-store.js';
export type { ObservedRelease, ObservedRollback, ReleaseObserver, ReleaseSource } from './release-observer.js';
export type { RollbackInput, RollbackResult } from './rollback.js';
export type { NodeGeneration, NodeOutcome, NodeRollbackIntent, ReleasePlacementHooks } from './placement-hooks.js';
export type { ReleaseCanaryHooks, ReleaseCanaryRun } from './canary-hooks.js';
