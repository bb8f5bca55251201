// Live queries over server-sent events: the hub, the route for createFetchHandler and the node adapter.
export { LiveHub, type LiveHubInit } from './live-hub.js';
export { createLiveRoute, type LiveRouteHandle } from './live-route.js';
export { toNodeHandler, createNodeLiveServer } from './node-adapter.js';
export { liveResponse } from './live-response.js';
export { LiveError } from './live-error.js';
export type { LiveOptionsInput } from './live-options.js';
export { commitAffects } from './commit-affects.js';
export type { LiveQuerySource, LiveOpenRequest, CommitEvent, QueryRun } from './live-types.js';
