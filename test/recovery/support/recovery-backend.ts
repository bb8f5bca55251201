// A small runtime backend for recovery tests: two tables and mutations that insert, patch, replace,
// delete and write several documents at once (real runtime transactions, real SQLite).
import {
  createEngine,
  defineBackend,
  defineSchema,
  defineTable,
  functionsFor,
  openDatabase,
  v,
  type AppDatabase,
  type Id,
  type RuntimeEngine,
} from '../../../src/runtime/index.js';

export const schema = defineSchema({
  items: defineTable({ name: v.string({ max: 100_000 }), qty: v.number(), flag: v.boolean() }).index('by_flag', ['flag']),
  notes: defineTable({ text: v.string({ max: 100_000 }) }),
});

const { mutation, query } = functionsFor(schema);

const functions = {
  items: {
    add: mutation({
      args: { name: v.string({ max: 100_000 }), qty: v.number() },
      handler: (ctx, args) => ctx.db.insert('items', { name: args.name, qty: args.qty, flag: false }),
    }),
    set: mutation({
      args: { id: v.string(), qty: v.number(), flag: v.boolean() },
      handler: (ctx, args) => {
        if (ctx.db.get(args.id as Id<'items'>) === null) return null;
        ctx.db.patch(args.id as Id<'items'>, { qty: args.qty, flag: args.flag });
        return args.id;
      },
    }),
    rename: mutation({
      args: { id: v.string(), name: v.string({ max: 100_000 }) },
      handler: (ctx, args) => {
        const doc = ctx.db.get(args.id as Id<'items'>);
        if (doc === null) return null;
        ctx.db.replace(args.id as Id<'items'>, { name: args.name, qty: doc.qty, flag: doc.flag });
        return args.id;
      },
    }),
    remove: mutation({
      args: { id: v.string() },
      handler: (ctx, args) => {
        if (ctx.db.get(args.id as Id<'items'>) === null) return null;
        ctx.db.delete(args.id as Id<'items'>);
        return args.id;
      },
    }),
    all: query({ handler: (ctx) => ctx.db.query('items').collect() }),
  },
  notes: {
    addMany: mutation({
      args: { texts: v.array(v.string({ max: 100_000 })) },
      handler: (ctx, args) => args.texts.map((text) => ctx.db.insert('notes', { text })),
    }),
    pair: mutation({
      args: { text: v.string({ max: 100_000 }) },
      handler: (ctx, args) => {
        const note = ctx.db.insert('notes', { text: args.text });
        const item = ctx.db.insert('items', { name: `for ${note}`, qty: 0.5, flag: true });
        return [note, item];
      },
    }),
  },
};

export const backend = defineBackend({ schema, functions });
/** The same backend with built-in auth (its user and session rows are written outside mutations). */
export const authBackend = defineBackend({ schema, functions, auth: true });

/** Open the runtime database and engine for a file. */
export function openApp(path: string): { db: AppDatabase; engine: RuntimeEngine } {
  const db = openDatabase(schema, { path, pollIntervalMs: false });
  return { db, engine: createEngine(backend, db) };
}
