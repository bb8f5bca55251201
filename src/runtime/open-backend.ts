// openBackend: the one-call way to run a backend — open the database with the spec's options and
// build the Fetch handler over it.
import type { BucketManager } from './buckets/bucket-manager.js';
import type { AppDatabase } from './database/app-database.js';
import { openDatabase, type OpenDatabaseOptions } from './database/open-database.js';
import type { Backend } from './functions/define-backend.js';
import { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './http/create-fetch-handler.js';

/** Backend open options: database options plus `prefix`, `buckets` and handler options. */
export interface OpenBackendOptions extends OpenDatabaseOptions, Omit<FetchHandlerOptions, 'engine'> {
  /** Bucket manager from createBucketManager (serves bucket routes, joins the manifest). */
  buckets?: BucketManager;
}

/** An opened backend. */
export interface OpenedBackend {
  readonly db: AppDatabase;
  readonly fetch: FetchHandler;
  readonly buckets: BucketManager | null;
  close(): void;
}

/** Open the database for a backend and create its Fetch handler. */
export function openBackend(backend: Backend, options: OpenBackendOptions = {}): OpenedBackend {
  const db = openDatabase(backend.schema, options);
  const fetch = createFetchHandler(backend, db, options);
  return { db, fetch, buckets: options.buckets ?? null, close: () => db.close() };
}
