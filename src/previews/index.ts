// The previews feature as the composition root and other features see it.
export { createPreviews, type PreviewsFeature } from './previews-feature.js';
export { previewsMigrations } from './migrations.js';
export { previewRoutes } from './preview-routes.js';
export { copyProductionData } from './copy-production-data.js';
export type { PreviewLifecycle, PreviewIdentity, PreviewOpenOutcome, PullRequestInput } from './preview-lifecycle.js';
