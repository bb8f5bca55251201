// Public surface of releases for other features and the composition root.
export { createReleases, type ReleasesFeature } from './releases-feature.js';
export { releasesMigrations } from './release-store.js';
export { databasePathOf, locateProjectPath, projectLayout, releaseDirOf } from './project-layout.js';
export { deleteReleaseRoutes } from './delete-release-routes.js';
export { logIsolation } from './log-isolation.js';
export { isolationSchema } from './isolation-contract.js';
// Read access to releases and the observer seam (GitHub reports releases through it).
export { activeReleaseRow, findRelease, getReleaseById, listActiveReleases, listReleases, releaseConfig, toRelease } from './release-store.js';
export { combineObservers } from './release-observer.js';
export type { ObservedRelease, ObservedRollback, ReleaseObserver, ReleaseSource } from './release-observer.js';
export type { RollbackInput, RollbackResult } from './rollback.js';
export type { NodeGeneration, ReleasePlacementHooks } from './placement-hooks.js';
export type { ReleaseCanaryHooks, ReleaseCanaryRun } from './canary-hooks.js';
