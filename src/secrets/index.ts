// Public surface of secrets for the composition root and other features.
export { createSecrets, type SecretsFeature } from './secrets-feature.js';
export { secretRoutes } from './secret-routes.js';
export { secretsMigrations } from './secret-store.js';
export { deriveKeyring, type Keyring } from './master-key.js';
export { sealBox, openBox } from './secret-box.js';
export { rotateMasterKey } from './rotate-master-key.js';
