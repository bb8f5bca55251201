// Validators: the bottom layer (imports only the runtime's errors). Each validator checks a JSON value,
// describes itself for the manifest, and carries its TypeScript type for inference.
import { RuntimeError, type RuntimeErrorCode } from '../errors.js';

/** A document id branded to its table; a plain string on the wire. */
export type Id<TableName extends string> = string & { readonly __table: TableName };

/** JSON description of a validator, as published in the manifest. */
export type ValidatorJson =
  | { type: 'string'; min?: number; max?: number }
  | { type: 'number'; integer?: boolean; min?: number; max?: number }
  | { type: 'boolean' }
  | { type: 'null' }
  | { type: 'id'; table: string }
  | { type: 'array'; items: ValidatorJson }
  | { type: 'object'; fields: Record<string, ValidatorJson & { optional?: boolean }> };

/** A validator of values of type T; `isOptional` marks fields that may be absent. */
export interface Validator<T, IsOptional extends boolean = false> {
  readonly isOptional: IsOptional;
  /** Returns the value when valid; throws RuntimeError(code) naming the path otherwise. */
  check(value: unknown, path: string, code: RuntimeErrorCode): T;
  toJSON(): ValidatorJson;
  /** Phantom member for type inference; never set at run time. */
  readonly type?: T;
}

// Validators of any type; `any` is confined to these generic constraints.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyValidator = Validator<any, boolean>;
export type PropertyValidators = Record<string, AnyValidator>;

/** The TypeScript type a validator accepts. */
export type Infer<V> = V extends Validator<infer T, boolean> ? T : never;

type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
type OptionalKeys<F extends PropertyValidators> = { [K in keyof F]: F[K] extends Validator<unknown, true> ? K : never }[keyof F];
type RequiredKeys<F extends PropertyValidators> = Exclude<keyof F, OptionalKeys<F>>;

/** The object type described by a record of field validators (optional validators give optional properties). */
export type ObjectType<F extends PropertyValidators> = Expand<{ [K in RequiredKeys<F>]: Infer<F[K]> } & { [K in OptionalKeys<F>]?: Infer<F[K]> }>;

function fail(code: RuntimeErrorCode, path: string, rule: string): never {
  throw new RuntimeError(code, `${path || 'value'} ${rule}`);
}

function make<T>(json: ValidatorJson, check: (value: unknown, path: string, code: RuntimeErrorCode) => T): Validator<T, false> {
  return { isOptional: false, check, toJSON: () => json };
}

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Whether a name is allowed as a table or field name (letters, digits, underscore; no leading underscore). */
export function isValidName(name: string): boolean {
  return FIELD_NAME.test(name);
}

function checkObject(fields: PropertyValidators, value: unknown, path: string, code: RuntimeErrorCode): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(code, path, 'must be an object');
  const input = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(fields, key) && input[key] !== undefined) fail(code, join(path, key), 'is not a declared field');
  }
  for (const [key, validator] of Object.entries(fields)) {
    const fieldValue = input[key];
    if (fieldValue === undefined) {
      if (!validator.isOptional) fail(code, join(path, key), 'is required');
      continue;
    }
    out[key] = validator.check(fieldValue, join(path, key), code);
  }
  return out;
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

/** Validates an object against field validators (used for args and documents); unknown fields are rejected. */
export function checkFields<F extends PropertyValidators>(fields: F, value: unknown, path: string, code: RuntimeErrorCode): ObjectType<F> {
  return checkObject(fields, value, path, code) as ObjectType<F>;
}

/** JSON description of a record of field validators. */
export function fieldsToJson(fields: PropertyValidators): Record<string, ValidatorJson & { optional?: boolean }> {
  const out: Record<string, ValidatorJson & { optional?: boolean }> = {};
  for (const [key, validator] of Object.entries(fields)) out[key] = validator.isOptional ? { ...validator.toJSON(), optional: true } : validator.toJSON();
  return out;
}

/** The validator namespace: `v.string({ min, max })`, `v.number({ integer, min })`, `v.boolean()`, `v.optional(x)`, `v.id(table)`. */
export const v = {
  string(options: { min?: number; max?: number } = {}): Validator<string> {
    return make({ type: 'string', ...options }, (value, path, code) => {
      if (typeof value !== 'string') fail(code, path, 'must be a string');
      if (options.min !== undefined && value.length < options.min) fail(code, path, `must have at least ${options.min} characters`);
      if (options.max !== undefined && value.length > options.max) fail(code, path, `must have at most ${options.max} characters`);
      return value;
    });
  },
  number(options: { integer?: boolean; min?: number; max?: number } = {}): Validator<number> {
    return make({ type: 'number', ...options }, (value, path, code) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) fail(code, path, 'must be a finite number');
      if (options.integer && !Number.isInteger(value)) fail(code, path, 'must be an integer');
      if (options.min !== undefined && value < options.min) fail(code, path, `must be at least ${options.min}`);
      if (options.max !== undefined && value > options.max) fail(code, path, `must be at most ${options.max}`);
      return value;
    });
  },
  boolean(): Validator<boolean> {
    return make({ type: 'boolean' }, (value, path, code) => (typeof value === 'boolean' ? value : fail(code, path, 'must be a boolean')));
  },
  null(): Validator<null> {
    return make({ type: 'null' }, (value, path, code) => (value === null ? null : fail(code, path, 'must be null')));
  },
  id<TableName extends string>(table: TableName): Validator<Id<TableName>> {
    return make({ type: 'id', table }, (value, path, code) => {
      if (typeof value !== 'string' || !isIdOf(value, table)) fail(code, path, `must be an id of table ${table}`);
      return value as Id<TableName>;
    });
  },
  array<T>(items: Validator<T, false>): Validator<T[]> {
    return make({ type: 'array', items: items.toJSON() }, (value, path, code) => {
      if (!Array.isArray(value)) fail(code, path, 'must be an array');
      return value.map((item, index) => items.check(item, join(path, index), code));
    });
  },
  object<F extends PropertyValidators>(fields: F): Validator<ObjectType<F>> {
    return make({ type: 'object', fields: fieldsToJson(fields) }, (value, path, code) => checkObject(fields, value, path, code) as ObjectType<F>);
  },
  optional<T>(inner: Validator<T, boolean>): Validator<T, true> {
    return { isOptional: true, check: (value, path, code) => inner.check(value, path, code), toJSON: () => inner.toJSON() };
  },
};

const ID_RANDOM = /^[0-9a-z]{20}$/;

/** Whether a string is an id of the given table (`<table>_<20 base-36 characters>`). */
export function isIdOf(value: string, table: string): boolean {
  return value.length === table.length + 21 && value.startsWith(`${table}_`) && ID_RANDOM.test(value.slice(table.length + 1));
}

/** The table an id belongs to, or null when the string is not shaped like an id. */
export function tableOfId(value: string): string | null {
  const cut = value.length - 21;
  if (cut < 1 || value[cut] !== '_' || !ID_RANDOM.test(value.slice(cut + 1))) return null;
  const table = value.slice(0, cut);
  return isValidName(table) ? table : null;
}
