// defineBackend: the schema, the function tree (flattened to slash-separated paths), auth and buckets.
import { RuntimeError } from '../errors.js';
import type { Schema } from '../schema/define-schema.js';
import { isValidName } from '../values/validators.js';
import type { FunctionDefinition } from './define-functions.js';

/** Built-in email + password authentication settings. */
export interface AuthOptions {
  /** Whether anyone may create an account (default true). */
  allowSignup?: boolean;
  /** Session lifetime in ms (default 30 days). */
  sessionTtlMs?: number;
  /** Minimum password length (default 8). */
  minPasswordLength?: number;
  /** Secure cookie attribute: 'auto' follows the request's protocol (default). */
  secureCookie?: boolean | 'auto';
}

/** A tree of functions: leaves are definitions, branches are namespaces. */
export interface FunctionTree {
  readonly [name: string]: FunctionDefinition | FunctionTree;
}

export interface BackendOptions<S extends Schema, F extends FunctionTree> {
  schema: S;
  functions: F;
  /** Turn on built-in authentication (`true` for defaults). */
  auth?: AuthOptions | boolean;
  /** Bucket definitions (published in the manifest; the bucket manager is passed at open). */
  buckets?: readonly unknown[];
}

/** A defined backend, ready to be opened. */
export interface Backend<S extends Schema = Schema, F extends FunctionTree = FunctionTree> {
  readonly schema: S;
  readonly functions: F;
  readonly registry: ReadonlyMap<string, FunctionDefinition>;
  readonly auth: Required<AuthOptions> | null;
  readonly buckets: readonly unknown[];
}

/** Define the backend; throws SVC_RUNTIME_SCHEMA on bad function names. */
export function defineBackend<S extends Schema, F extends FunctionTree>(options: BackendOptions<S, F>): Backend<S, F> {
  const registry = new Map<string, FunctionDefinition>();
  flatten(options.functions, [], registry);
  const auth = options.auth === undefined || options.auth === false ? null : options.auth === true ? {} : options.auth;
  return {
    schema: options.schema,
    functions: options.functions,
    registry,
    auth:
      auth === null
        ? null
        : {
            allowSignup: auth.allowSignup ?? true,
            sessionTtlMs: auth.sessionTtlMs ?? 30 * 24 * 60 * 60 * 1000,
            minPasswordLength: auth.minPasswordLength ?? 8,
            secureCookie: auth.secureCookie ?? 'auto',
          },
    buckets: options.buckets ?? [],
  };
}

function isDefinition(value: unknown): value is FunctionDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    ((value as FunctionDefinition).kind === 'query' || (value as FunctionDefinition).kind === 'mutation') &&
    typeof (value as FunctionDefinition).handler === 'function'
  );
}

function flatten(tree: FunctionTree, prefix: string[], out: Map<string, FunctionDefinition>): void {
  for (const [name, node] of Object.entries(tree)) {
    if (!isValidName(name)) throw new RuntimeError('SVC_RUNTIME_SCHEMA', `Invalid function name "${[...prefix, name].join('/')}".`);
    if (isDefinition(node)) out.set([...prefix, name].join('/'), node);
    else if (typeof node === 'object' && node !== null) flatten(node, [...prefix, name], out);
    else throw new RuntimeError('SVC_RUNTIME_SCHEMA', `"${[...prefix, name].join('/')}" is neither a function nor a namespace.`);
  }
}
