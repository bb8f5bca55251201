// A small backend used across runtime tests: public notes, owned tasks, and functions that misbehave on purpose.
import { AppError, defineBackend, defineSchema, defineTable, functionsFor, v, type Id } from '../../../src/runtime/index.js';

export const schema = defineSchema({
  notes: defineTable({ title: v.string({ min: 1, max: 100 }), priority: v.number({ integer: true, min: 0 }), done: v.boolean(), tag: v.optional(v.string()) })
    .index('by_done', ['done'])
    .index('by_priority', ['priority']),
  tasks: defineTable({ text: v.string({ min: 1, max: 200 }), done: v.boolean() })
    .index('by_done', ['done'])
    .owned(),
});

const { query, mutation } = functionsFor(schema);

export const functions = {
  notes: {
    list: query({
      args: { done: v.optional(v.boolean()), maxPriority: v.optional(v.number()) },
      handler: (ctx, args) => {
        let q = ctx.db.query('notes');
        if (args.done !== undefined) q = q.where('done', args.done);
        if (args.maxPriority !== undefined) q = q.filter((f) => f.lt('priority', args.maxPriority!));
        return q.order('desc', 'priority').collect();
      },
    }),
    get: query({ args: { id: v.id('notes') }, handler: (ctx, args) => ctx.db.get(args.id) }),
    add: mutation({
      args: { title: v.string(), priority: v.number({ integer: true, min: 0 }), tag: v.optional(v.string()) },
      handler: (ctx, args) =>
        ctx.db.insert('notes', { title: args.title, priority: args.priority, done: false, ...(args.tag === undefined ? {} : { tag: args.tag }) }),
    }),
    setDone: mutation({
      args: { id: v.id('notes'), done: v.boolean(), ifVersion: v.optional(v.number({ integer: true, min: 1 })) },
      handler: (ctx, args) => {
        ctx.db.patch(args.id, { done: args.done }, args.ifVersion === undefined ? {} : { ifVersion: args.ifVersion });
        return ctx.db.get(args.id);
      },
    }),
    remove: mutation({ args: { id: v.id('notes') }, handler: (ctx, args) => ctx.db.delete(args.id) }),
    addThenThrow: mutation({
      args: { title: v.string() },
      handler: (ctx, args) => {
        ctx.db.insert('notes', { title: args.title, priority: 1, done: false });
        throw new Error('boom: secret internal detail');
      },
    }),
    addThenAppError: mutation({
      args: { title: v.string() },
      handler: (ctx, args) => {
        ctx.db.insert('notes', { title: args.title, priority: 1, done: false });
        throw new AppError('Title not allowed', { field: 'title' });
      },
    }),
    addThenHuge: mutation({
      args: { title: v.string() },
      handler: (ctx, args) => {
        ctx.db.insert('notes', { title: args.title, priority: 1, done: false });
        return 'x'.repeat(2 * 1024 * 1024);
      },
    }),
    addThenNonJson: mutation({
      args: { title: v.string() },
      handler: (ctx, args) => {
        ctx.db.insert('notes', { title: args.title, priority: 1, done: false });
        return { when: new Date(0) } as unknown;
      },
    }),
    count: query({ public: true, handler: (ctx) => ctx.db.query('notes').collect().length }),
  },
  tasks: {
    list: query({ handler: (ctx) => ctx.db.query('tasks').order('desc').collect() }),
    get: query({ args: { id: v.id('tasks') }, handler: (ctx, args) => ctx.db.get(args.id) }),
    add: mutation({ args: { text: v.string({ min: 1, max: 200 }) }, handler: (ctx, args) => ctx.db.insert('tasks', { text: args.text, done: false }) }),
    toggle: mutation({
      args: { id: v.id('tasks') },
      handler: (ctx, args) => {
        const task = ctx.db.get(args.id);
        if (task === null) return null;
        ctx.db.patch(args.id, { done: !task.done });
        return ctx.db.get(args.id);
      },
    }),
    forceDone: mutation({ args: { id: v.id('tasks') }, handler: (ctx, args) => ctx.db.patch(args.id as Id<'tasks'>, { done: true }) }),
    remove: mutation({ args: { id: v.id('tasks') }, handler: (ctx, args) => ctx.db.delete(args.id) }),
  },
};

/** The backend without auth (owned tables need an identity passed directly). */
export const backend = defineBackend({ schema, functions });
/** The same backend with built-in auth. */
export const authBackend = defineBackend({ schema, functions, auth: true });
