// The function executor: checks access and arguments, runs queries on a snapshot with a read-only view
// (recording dependencies) and mutations in one immediate write transaction with output checks inside it.
import type { AppDatabase } from '../database/app-database.js';
import { DocumentReader, type DependencySets } from '../database/document-reader.js';
import { DocumentWriter } from '../database/document-writer.js';
import type { FunctionKind, FunctionManifestEntry, Identity, MutationRun, QueryRun, RuntimeEngine } from '../engine.js';
import { RuntimeError } from '../errors.js';
import { checkFields, fieldsToJson } from '../values/validators.js';
import { checkOutput } from './check-output.js';
import type { Backend } from './define-backend.js';
import type { FunctionDefinition } from './define-functions.js';

type Handler = (ctx: unknown, args: unknown) => unknown;

/** Build the executor for a backend over an opened database. */
export function createEngine(backend: Backend, db: AppDatabase): RuntimeEngine {
  const manifest: FunctionManifestEntry[] = [...backend.registry].map(([path, definition]) => ({
    path,
    kind: definition.kind,
    args: { type: 'object', fields: fieldsToJson(definition.args) },
    ...(definition.returns === undefined ? {} : { returns: definition.returns.toJSON() }),
    public: definition.public,
  }));

  function lookup(path: string, kind: FunctionKind, identity: Identity | null, args: unknown): { definition: FunctionDefinition; args: unknown } {
    const definition = backend.registry.get(path);
    if (definition === undefined || definition.kind !== kind) throw new RuntimeError('SVC_RUNTIME_UNKNOWN_FUNCTION', `No ${kind} named "${path}".`);
    if (backend.auth !== null && !definition.public && identity === null)
      throw new RuntimeError('SVC_RUNTIME_UNAUTHENTICATED', 'Sign in to call this function.');
    return { definition, args: checkFields(definition.args, args ?? {}, 'args', 'SVC_RUNTIME_INVALID_ARGUMENTS') };
  }

  return {
    db,
    authEnabled: backend.auth !== null,
    kindOf: (path) => backend.registry.get(path)?.kind,
    isPublic: (path) => backend.registry.get(path)?.public === true,
    manifest: () => manifest,

    runQuery<T>(path: string, rawArgs: unknown, identity: Identity | null): QueryRun<T> {
      const { definition, args } = lookup(path, 'query', identity, rawArgs);
      const dependencies: DependencySets = { tables: new Set(), documents: new Set() };
      const result = db.read(() => {
        const ctx = { db: readOnly(new DocumentReader(db, identity, dependencies)), identity, auth: { getUserIdentity: () => identity } };
        return checkOutput((definition.handler as Handler)(ctx, args), definition.returns).value;
      });
      return { value: result.value as T, dependencies, revision: result.revision };
    },

    runMutation<T>(path: string, rawArgs: unknown, identity: Identity | null): MutationRun<T> {
      const { definition, args } = lookup(path, 'mutation', identity, rawArgs);
      const result = db.write((changes) => {
        const writer = new DocumentWriter(db, identity, changes);
        const ctx = { db: writer, identity, auth: { getUserIdentity: () => identity } };
        return checkOutput((definition.handler as Handler)(ctx, args), definition.returns).value;
      });
      return { value: result.value as T, revision: result.revision };
    },
  };
}

/** Only get() and query() are reachable from a query's context. */
function readOnly(reader: DocumentReader): Pick<DocumentReader, 'get' | 'query'> {
  return Object.freeze({ get: (id: string) => reader.get(id), query: (table: string) => reader.query(table) });
}
