// Public surface of platform recovery for the composition root and the master-key rotation.
export { createRecovery, type RecoveryFeature, type RecoveryReleaseHooks } from './recovery-feature.js';
export { recoveryRoutes } from './recovery-routes.js';
export { recoveryEnabled, recoveryMigrations } from './recovery-store.js';
export { rewrapRecoveryKeys } from './recovery-key-store.js';
export type { ActivationDeps, RecoveryAppControl } from './activate-restore.js';
export type { RecoveryJobs } from './project-recovery.js';
