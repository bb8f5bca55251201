// Live queries over server-sent events: the hub, the route for createFetchHandler and the node adapter.
export { LiveHub, type LiveHubInit, type LiveHubStats, type LiveErrorFormatter } from './live-hub.js';
export { createLiveRoute, engineLiveSource, type LiveRouteHandle } from './live-route.js';
export { toNodeHandler, createNodeLiveServer, type FetchHandler } from './node-adapter.js';
export { liveResponse, claimLiveConnection, SSE_HEADERS } from './live-response.js';
export { LiveError, liveErrorCodes, type LiveErrorCode } from './live-error.js';
export { liveOptionsSchema, resolveLiveOptions, type LiveOptions, type LiveOptionsInput } from './live-options.js';
export { commitAffects } from './commit-affects.js';
export { liveKey } from './live-key.js';
export type { LiveQuerySource, LiveOpenRequest, LiveErrorBody, CommitEvent, Dependencies, QueryRun } from './live-types.js';
