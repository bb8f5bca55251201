import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../src/runtime/database/query-sql.js';
import { checkOutput } from '../../src/runtime/functions/check-output.js';
import { checkFields, isIdOf, tableOfId } from '../../src/runtime/values/validators.js';
import { canonicalJson, v, type RuntimeError } from '../../src/runtime/index.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as RuntimeError).code;
  }
}

describe('validators', () => {
  const fields = {
    name: v.string({ min: 2, max: 4 }),
    n: v.number({ integer: true, min: 0 }),
    ok: v.boolean(),
    note: v.optional(v.string()),
    ref: v.id('tasks'),
  };
  const good = { name: 'abc', n: 3, ok: true, ref: 'tasks_0123456789abcdefghij' };

  it('accept valid values and drop nothing', () => {
    expect(checkFields(fields, good, 'args', 'SVC_RUNTIME_INVALID_ARGUMENTS')).toEqual(good);
    expect(checkFields(fields, { ...good, note: 'x' }, 'args', 'SVC_RUNTIME_INVALID_ARGUMENTS')).toEqual({ ...good, note: 'x' });
  });

  it.each([
    ['short string', { ...good, name: 'a' }],
    ['long string', { ...good, name: 'abcde' }],
    ['non-integer', { ...good, n: 1.5 }],
    ['below min', { ...good, n: -1 }],
    ['NaN', { ...good, n: Number.NaN }],
    ['string for boolean', { ...good, ok: 'true' }],
    ['missing field', { name: 'abc', n: 1, ok: true }],
    ['unknown field', { ...good, extra: 1 }],
    ['id of another table', { ...good, ref: 'notes_0123456789abcdefghij' }],
    ['malformed id', { ...good, ref: 'tasks_1' }],
    ['array instead of object', [good]],
  ])('reject %s with the given code', (_name, value) => {
    expect(code(() => checkFields(fields, value, 'args', 'SVC_RUNTIME_INVALID_ARGUMENTS'))).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');
  });

  it('parse ids back to their table', () => {
    expect(tableOfId('my_table_0123456789abcdefghij')).toBe('my_table');
    expect(tableOfId('0123456789abcdefghij')).toBeNull();
    expect(isIdOf('tasks_0123456789abcdefghij', 'tasks')).toBe(true);
  });
});

describe('compileQuery', () => {
  const isField = (f: string) => ['_id', '_creationTime', '_version', 'done', 'p'].includes(f);
  it('binds every value as a parameter and scopes owned tables', () => {
    const { sql, params } = compileQuery(
      {
        table: 't',
        conditions: [
          { op: 'eq', field: 'done', value: true },
          { op: 'lt', field: 'p', value: "3'; DROP TABLE t; --" },
        ],
        order: { field: 'p', direction: 'desc' },
        limit: 5,
        ownerId: 'u1',
      },
      isField,
    );
    expect(sql).toBe(
      `SELECT "_id", "_creationTime", "_version", "_ownerId", "doc" FROM "t" WHERE "_ownerId" = ? AND json_extract("doc", '$.done') = ? AND json_extract("doc", '$.p') < ? ORDER BY json_extract("doc", '$.p') DESC, "_creationTime" DESC LIMIT ?`,
    );
    expect(params).toEqual(['u1', 1, "3'; DROP TABLE t; --", 5]);
  });
  it('handles null with IS NULL / IS NOT NULL and rejects unknown fields and ordering against null', () => {
    expect(
      compileQuery(
        {
          table: 't',
          conditions: [
            { op: 'eq', field: 'p', value: null },
            { op: 'neq', field: 'done', value: null },
          ],
          order: { field: '_creationTime', direction: 'asc' },
        },
        isField,
      ).sql,
    ).toContain(`json_extract("doc", '$.p') IS NULL AND json_extract("doc", '$.done') IS NOT NULL`);
    expect(
      code(() => compileQuery({ table: 't', conditions: [{ op: 'eq', field: 'x', value: 1 }], order: { field: '_creationTime', direction: 'asc' } }, isField)),
    ).toBe('SVC_RUNTIME_INVALID_QUERY');
    expect(
      code(() =>
        compileQuery({ table: 't', conditions: [{ op: 'lt', field: 'p', value: null }], order: { field: '_creationTime', direction: 'asc' } }, isField),
      ),
    ).toBe('SVC_RUNTIME_INVALID_QUERY');
    expect(
      code(() =>
        compileQuery({ table: 't', conditions: [{ op: 'eq', field: 'p', value: {} as never }], order: { field: '_creationTime', direction: 'asc' } }, isField),
      ),
    ).toBe('SVC_RUNTIME_INVALID_QUERY');
  });
});

describe('checkOutput', () => {
  it('accepts JSON, turns undefined into null, and rejects everything else', () => {
    expect(checkOutput(undefined, undefined).value).toBeNull();
    expect(checkOutput({ a: [1, 'x', null, { b: true }], skip: undefined }, undefined).json).toBe('{"a":[1,"x",null,{"b":true}]}');
    for (const bad of [new Date(), Number.POSITIVE_INFINITY, 1n, () => 1, Symbol('x'), [undefined], new Map(), Promise.resolve(1)]) {
      expect(code(() => checkOutput(bad, undefined))).toBe('SVC_RUNTIME_INVALID_OUTPUT');
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(code(() => checkOutput(cycle, undefined))).toBe('SVC_RUNTIME_INVALID_OUTPUT');
    expect(code(() => checkOutput('x'.repeat(100), undefined, 50))).toBe('SVC_RUNTIME_OUTPUT_TOO_LARGE');
    expect(code(() => checkOutput('x', v.number()))).toBe('SVC_RUNTIME_INVALID_OUTPUT');
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
  });
});
