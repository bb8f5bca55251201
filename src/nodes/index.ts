// Public surface of runner nodes (control-plane side) for the composition root.
export { createNodes, type NodesFeature } from './nodes-feature.js';
export { nodesMigrations } from './nodes-migrations.js';
export type { NodeReleaseListener } from './nodes-context.js';
