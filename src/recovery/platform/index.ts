// Public surface of platform recovery for the composition root and the master-key rotation.
export { createRecovery } from './recovery-feature.js';
export { recoveryEnabled, recoveryMigrations } from './recovery-store.js';
export { rewrapRecoveryKeys } from './recovery-key-store.js';
