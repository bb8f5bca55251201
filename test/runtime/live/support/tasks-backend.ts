// The small app the live integration tests, the fault tests, the browser test and B3 run against.
import { defineBackend, defineSchema, defineTable, functionsFor, v } from '../../../../src/runtime/index.js';

export const schema = defineSchema({
  tasks: defineTable({ text: v.string({ max: 200_000 }), list: v.string({ max: 50 }) }).index('by_list', ['list']),
});

const { query, mutation } = functionsFor(schema);

export const backend = defineBackend({
  schema,
  functions: {
    tasks: {
      /** Tasks of one list, oldest first (tracks the table). */
      list: query({
        args: { list: v.string() },
        handler: (ctx, args) =>
          ctx.db
            .query('tasks')
            .where('list', args.list)
            .collect()
            .map((t) => ({ id: t._id, text: t.text })),
      }),
      /** The newest `limit` tasks of any list (tracks the table). */
      latest: query({
        args: { limit: v.number({ integer: true, min: 1, max: 1000 }) },
        handler: (ctx, args) =>
          ctx.db
            .query('tasks')
            .order('desc')
            .take(args.limit)
            .map((t) => t.text),
      }),
      /** One task by id (tracks that document). */
      get: query({
        args: { id: v.id('tasks') },
        handler: (ctx, args) => ctx.db.get(args.id)?.text ?? null,
      }),
      add: mutation({
        args: { text: v.string({ max: 200_000 }), list: v.string({ max: 50 }) },
        handler: (ctx, args) => ctx.db.insert('tasks', args),
      }),
      rename: mutation({
        args: { id: v.id('tasks'), text: v.string() },
        handler: (ctx, args) => {
          ctx.db.patch(args.id, { text: args.text });
          return null;
        },
      }),
    },
  },
});

/** The same app with built-in authentication: every function needs a session, mutations need CSRF. */
export const authedBackend = defineBackend({ schema, functions: backend.functions, auth: true });
