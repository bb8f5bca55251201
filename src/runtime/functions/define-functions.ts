// Public definitions: query(), mutation(), functionsFor(schema) for schema-typed contexts, and the
// context types handlers receive. Handlers are synchronous and deterministic.
import type { Identity } from '../engine.js';
import type { DocumentQuery } from '../database/document-query.js';
import type { WriteOptions } from '../database/document-writer.js';
import type { Doc, DocInput, Schema, TableNames } from '../schema/define-schema.js';
import type { AnyValidator, Id, Infer, ObjectType, PropertyValidators } from '../values/validators.js';

/** Read-only database view of a query. */
export interface DatabaseReader<S extends Schema> {
  /** The document, or null if it does not exist or is another user's (owned tables). Tracks the document. */
  get<T extends TableNames<S>>(id: Id<T>): Doc<S, T> | null;
  /** A builder query; running it tracks the whole table. */
  query<T extends TableNames<S>>(table: T): DocumentQuery<Doc<S, T>>;
}

/** Database view of a mutation: reads see the mutation's own writes. */
export interface DatabaseWriter<S extends Schema> extends DatabaseReader<S> {
  insert<T extends TableNames<S>>(table: T, value: DocInput<S, T>): Id<T>;
  patch<T extends TableNames<S>>(id: Id<T>, value: Partial<DocInput<S, T>>, options?: WriteOptions): void;
  replace<T extends TableNames<S>>(id: Id<T>, value: DocInput<S, T>, options?: WriteOptions): void;
  delete<T extends TableNames<S>>(id: Id<T>, options?: WriteOptions): void;
}

/** Convex-style access to the caller. */
export interface AuthCtx {
  getUserIdentity(): Identity | null;
}

export interface QueryCtx<S extends Schema> {
  readonly db: DatabaseReader<S>;
  /** The signed-in caller, or null. */
  readonly identity: Identity | null;
  readonly auth: AuthCtx;
}

export interface MutationCtx<S extends Schema> {
  readonly db: DatabaseWriter<S>;
  readonly identity: Identity | null;
  readonly auth: AuthCtx;
}

interface FunctionOptions<A extends PropertyValidators, R extends AnyValidator | undefined> {
  /** Argument validators; arguments arrive as one JSON object. */
  args?: A;
  /** Optional result validator (published in the manifest). */
  returns?: R;
  /** With auth enabled, callable without a session (owned tables stay closed to anonymous callers). */
  public?: boolean;
}

type Result<R extends AnyValidator | undefined, Out> = R extends AnyValidator ? Infer<R> : Out;

/** A defined function; `args` and `result` are phantom types for clients. */
export interface FunctionDefinition<Kind extends 'query' | 'mutation' = 'query' | 'mutation', Args = unknown, Out = unknown> {
  readonly kind: Kind;
  readonly args: PropertyValidators;
  readonly returns: AnyValidator | undefined;
  readonly public: boolean;
  readonly handler: (ctx: never, args: never) => unknown;
  readonly __args?: Args;
  readonly __result?: Out;
}

export type QueryDefinition<Args = unknown, Out = unknown> = FunctionDefinition<'query', Args, Out>;
export type MutationDefinition<Args = unknown, Out = unknown> = FunctionDefinition<'mutation', Args, Out>;

function define<Kind extends 'query' | 'mutation'>(
  kind: Kind,
  options: FunctionOptions<PropertyValidators, AnyValidator | undefined> & { handler: (ctx: never, args: never) => unknown },
): FunctionDefinition<Kind> {
  return { kind, args: options.args ?? {}, returns: options.returns, public: options.public === true, handler: options.handler };
}

/** Query and mutation constructors whose contexts are typed by the schema. */
export function functionsFor<S extends Schema>(_schema: S) {
  return {
    /** A read-only function: gets a read view and records what it reads. */
    query<A extends PropertyValidators = Record<never, never>, Out = unknown, R extends AnyValidator | undefined = undefined>(
      options: FunctionOptions<A, R> & { handler: (ctx: QueryCtx<S>, args: ObjectType<A>) => Out },
    ): QueryDefinition<ObjectType<A>, Result<R, Out>> {
      return define('query', options as never) as QueryDefinition<ObjectType<A>, Result<R, Out>>;
    },
    /** A writing function: runs in one immediate transaction; a throw or bad result rolls it back. */
    mutation<A extends PropertyValidators = Record<never, never>, Out = unknown, R extends AnyValidator | undefined = undefined>(
      options: FunctionOptions<A, R> & { handler: (ctx: MutationCtx<S>, args: ObjectType<A>) => Out },
    ): MutationDefinition<ObjectType<A>, Result<R, Out>> {
      return define('mutation', options as never) as MutationDefinition<ObjectType<A>, Result<R, Out>>;
    },
  };
}

const untyped = functionsFor({ tables: {} } as unknown as Schema);
/** A query without schema typing (documents are loosely typed); prefer `functionsFor(schema).query`. */
export const query = untyped.query;
/** A mutation without schema typing; prefer `functionsFor(schema).mutation`. */
export const mutation = untyped.mutation;
