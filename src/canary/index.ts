// Public surface of canary rollouts for the composition root and other features.
export { createCanary, type CanaryFeature, type CanaryOptions } from './canary-feature.js';
export { canaryMigrations } from './canary-store.js';
export type { CanaryObserver, CanaryStageEvent } from './canary-observer.js';
