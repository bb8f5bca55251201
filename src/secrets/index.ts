// Public surface of secrets for the composition root and other features.
export { createSecrets, assertSecretName, type SecretsFeature, type SecretSubject } from './secrets-feature.js';
export { secretRoutes } from './secret-routes.js';
export { secretsMigrations } from './secret-store.js';
export { deriveKeyring, loadMasterKey, parseMasterKey, keyCheckValue, MASTER_KEY_ENV, type Keyring } from './master-key.js';
export { sealBox, openBox, secretAad } from './secret-box.js';
export { rotateMasterKey, type KeyRewrapper, type RotateOptions, type RotateResult } from './rotate-master-key.js';
