// @svc-dev/svc/runtime: what a deployed app imports on the server.
export { v, type Id, type Infer, type ObjectType, type Validator, type ValidatorJson, type PropertyValidators } from './values/validators.js';
export { defineSchema, defineTable, TableDefinition, type Schema, type Doc, type DocInput, type TableNames } from './schema/define-schema.js';
export {
  functionsFor,
  query,
  mutation,
  type QueryCtx,
  type AuthCtx,
  type MutationCtx,
  type DatabaseReader,
  type DatabaseWriter,
  type FunctionDefinition,
  type QueryDefinition,
  type MutationDefinition,
} from './functions/define-functions.js';
export { defineBackend, type Backend, type AuthOptions, type FunctionTree } from './functions/define-backend.js';
export { createEngine } from './functions/create-engine.js';
export { MAX_OUTPUT_CHARS } from './functions/check-output.js';
export { openDatabase, type OpenDatabaseOptions } from './database/open-database.js';
export type { AppDatabase } from './database/app-database.js';
export type { DocumentQuery, FilterBuilder } from './database/document-query.js';
export type { WriteOptions } from './database/document-writer.js';
export { RuntimeError, DatabaseConflictError, AppError, runtimeCodes, type RuntimeErrorCode } from './errors.js';
export { canonicalJson } from './canonical-json.js';
export type * from './engine.js';
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './http/create-fetch-handler.js';
export { toFetchRequest, sendFetchResponse, type NodeRequestOptions } from './http/node-adapter.js';
export { openBackend, type OpenBackendOptions, type OpenedBackend } from './open-backend.js';
export * from './buckets/index.js';
export { renderCsrfMeta } from './auth/render-csrf-meta.js';
export { SESSION_COOKIE, CSRF_HEADER } from './auth/cookies.js';
export type { Session } from './auth/session-store.js';
// Live queries (src/runtime/live, separate owner): the route plugged into createFetchHandler({ live }).
export { createLiveRoute, toNodeHandler, createNodeLiveServer, type LiveRouteHandle, type LiveOptionsInput } from './live/index.js';
