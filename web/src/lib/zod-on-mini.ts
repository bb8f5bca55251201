// The browser's `zod`. web/vite.config.ts aliases `zod` to this module, so the console evaluates the
// very src/*/contract.ts files the server uses (one source of truth for every schema) on zod's small
// build, zod/mini: the same validation core as classic zod, but tree-shakeable, so only the checks the
// contracts use reach the bundle. Classic zod attaches every method to every schema, which keeps all
// of zod in the bundle. Only the chainable methods the contracts and web/ use are provided here;
// test/web/zod-on-mini.test.ts evaluates every contract through this module and compares each
// exported schema with the server's (as JSON Schema), so a missing or diverging method fails there.
import * as m from 'zod/mini';

type Mini = m.ZodMiniType;
type Shape = Record<string, Mini>;
type Params = string | { message?: string; error?: string };

const isNumber = (schema: Mini) => schema._zod.def.type === 'number';

const methods = {
  optional(this: Mini) {
    return classic(m.optional(this));
  },
  nullable(this: Mini) {
    return classic(m.nullable(this));
  },
  nullish(this: Mini) {
    return classic(m.nullish(this));
  },
  default(this: Mini, value: unknown) {
    return classic(m._default(this, value as never));
  },
  /** Descriptions document the API (docs/api.md, OpenAPI); the browser only validates, so none is kept. */
  describe(this: Mini) {
    return this;
  },
  min(this: Mini, n: number, params?: Params) {
    return classic(this.check(isNumber(this) ? m.gte(n, params) : m.minLength(n, params)));
  },
  max(this: Mini, n: number, params?: Params) {
    return classic(this.check(isNumber(this) ? m.lte(n, params) : m.maxLength(n, params)));
  },
  int(this: Mini) {
    return classic(this.check(m.int()));
  },
  nonnegative(this: Mini) {
    return classic(this.check(m.gte(0)));
  },
  positive(this: Mini) {
    return classic(this.check(m.gt(0)));
  },
  regex(this: Mini, pattern: RegExp, params?: Params) {
    return classic(this.check(m.regex(pattern, params)));
  },
  trim(this: Mini) {
    return classic(this.check(m.trim()));
  },
  toLowerCase(this: Mini) {
    return classic(this.check(m.toLowerCase()));
  },
  refine(this: Mini, test: (value: unknown) => unknown, params?: Params) {
    return classic(this.check(m.refine(test, params)));
  },
  transform(this: Mini, fn: (value: never) => unknown) {
    return classic(m.pipe(this, m.transform(fn)));
  },
  pipe(this: Mini, next: Mini) {
    return classic(m.pipe(this, next));
  },
  array(this: Mini) {
    return classic(m.array(this));
  },
  extend(this: Mini, shape: Shape) {
    return classic(m.extend(this as m.ZodMiniObject, shape));
  },
  /** Unknown keys are kept (classic `.loose()`). */
  loose(this: Mini) {
    return classic(m.catchall(this as m.ZodMiniObject, m.unknown()));
  },
};

type Classic = Mini & typeof methods;

function classic(schema: Mini): Classic {
  return Object.assign(schema, methods);
}

/** The subset of classic zod's `z` the contracts build their schemas with. */
export const z = {
  string: () => classic(m.string()),
  number: () => classic(m.number()),
  boolean: () => classic(m.boolean()),
  unknown: () => classic(m.unknown()),
  email: () => classic(m.email()),
  url: () => classic(m.url()),
  ipv4: () => classic(m.ipv4()),
  ipv6: () => classic(m.ipv6()),
  literal: (value: string | number | boolean) => classic(m.literal(value)),
  enum: (values: readonly string[]) => classic(m.enum(values as [string, ...string[]])),
  object: (shape: Shape) => classic(m.object(shape)),
  strictObject: (shape: Shape) => classic(m.strictObject(shape)),
  looseObject: (shape: Shape) => classic(m.looseObject(shape)),
  array: (element: Mini) => classic(m.array(element)),
  record: (key: m.ZodMiniString, value: Mini) => classic(m.record(key, value)),
  union: (options: readonly Mini[]) => classic(m.union(options)),
  discriminatedUnion: (key: string, options: readonly m.ZodMiniObject[]) =>
    classic(m.discriminatedUnion(key, options as [m.ZodMiniObject, ...m.ZodMiniObject[]])),
  coerce: { number: () => classic(m.coerce.number()) },
};
