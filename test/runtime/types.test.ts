// Type-level tests: the document, argument and result types inferred from the schema and functions.
import { describe, expectTypeOf, it } from 'vitest';
import { defineSchema, defineTable, functionsFor, v, type Doc, type DocInput, type Id, type Infer } from '../../src/runtime/index.js';

const schema = defineSchema({
  tasks: defineTable({ text: v.string({ max: 10 }), done: v.boolean(), priority: v.optional(v.number({ integer: true })), list: v.id('lists') })
    .index('by_done', ['done'])
    .owned(),
  lists: defineTable({ name: v.string() }),
});
const { query, mutation } = functionsFor(schema);

describe('inferred types', () => {
  it('validators infer their value types, optional wrapper included', () => {
    expectTypeOf<Infer<ReturnType<typeof v.string>>>().toEqualTypeOf<string>();
    expectTypeOf<Infer<ReturnType<typeof v.number>>>().toEqualTypeOf<number>();
    expectTypeOf<Infer<ReturnType<typeof v.boolean>>>().toEqualTypeOf<boolean>();
    expectTypeOf(v.id('lists').type).toEqualTypeOf<Id<'lists'> | undefined>();
    expectTypeOf(v.optional(v.string()).isOptional).toEqualTypeOf<true>();
    expectTypeOf<Infer<ReturnType<typeof v.optional<string>>>>().toEqualTypeOf<string>();
  });

  it('documents carry system fields, branded ids, optional properties and _ownerId only on owned tables', () => {
    expectTypeOf<Doc<typeof schema, 'tasks'>>().toEqualTypeOf<{
      _id: Id<'tasks'>;
      _creationTime: number;
      _version: number;
      _ownerId: string;
      text: string;
      done: boolean;
      priority?: number;
      list: Id<'lists'>;
    }>();
    expectTypeOf<Doc<typeof schema, 'lists'>>().toEqualTypeOf<{ _id: Id<'lists'>; _creationTime: number; _version: number; name: string }>();
    expectTypeOf<DocInput<typeof schema, 'lists'>>().toEqualTypeOf<{ name: string }>();
    // An id of one table is not an id of another.
    expectTypeOf<Id<'tasks'>>().not.toEqualTypeOf<Id<'lists'>>();
    expectTypeOf<Id<'tasks'>>().toExtend<string>();
  });

  it('function contexts and results are typed by the schema', () => {
    const get = query({
      args: { id: v.id('tasks') },
      handler: (ctx, args) => {
        expectTypeOf(args).toEqualTypeOf<{ id: Id<'tasks'> }>();
        const task = ctx.db.get(args.id);
        expectTypeOf(task).toEqualTypeOf<Doc<typeof schema, 'tasks'> | null>();
        const open = ctx.db.query('tasks').where('done', false).order('desc').first();
        expectTypeOf(open).toEqualTypeOf<Doc<typeof schema, 'tasks'> | null>();
        // @ts-expect-error a query context has no writes
        void ctx.db.insert;
        // @ts-expect-error unknown field in where()
        void ctx.db.query('tasks').where('nope', 1);
        return task?.text ?? null;
      },
    });
    expectTypeOf(get.__result).toEqualTypeOf<string | null | undefined>();
    const add = mutation({
      args: { text: v.string(), list: v.id('lists') },
      handler: (ctx, args) => {
        const id = ctx.db.insert('tasks', { text: args.text, done: false, list: args.list });
        expectTypeOf(id).toEqualTypeOf<Id<'tasks'>>();
        // @ts-expect-error missing required field
        void (() => ctx.db.insert('tasks', { text: 'x' }));
        ctx.db.patch(id, { done: true }, { ifVersion: 1 });
        return id;
      },
    });
    expectTypeOf(add.__args).toEqualTypeOf<{ text: string; list: Id<'lists'> } | undefined>();
  });
});
