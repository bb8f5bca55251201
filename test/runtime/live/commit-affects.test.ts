import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commitAffects } from '../../../src/runtime/live/index.js';
import { DependencyIndex } from '../../../src/runtime/live/dependency-index.js';
import { LiveQueryState } from '../../../src/runtime/live/live-query-state.js';

const name = fc.constantFrom('a', 'b', 'c', 'd');
const deps = fc.record({ tables: fc.uniqueArray(name, { maxLength: 3 }), documents: fc.uniqueArray(name, { maxLength: 3 }) });

describe('commitAffects', () => {
  it('matches on tables or documents, and on unknown changes', () => {
    const d = { tables: new Set(['tasks']), documents: new Set(['notes_1']) };
    const ev = (tables: string[], documents: string[], unknown = false) => ({ revision: 1, tables: new Set(tables), documents: new Set(documents), unknown });
    expect(commitAffects(d, ev(['tasks'], []))).toBe(true);
    expect(commitAffects(d, ev(['notes'], ['notes_1']))).toBe(true);
    expect(commitAffects(d, ev(['notes'], ['notes_2']))).toBe(false);
    expect(commitAffects(d, ev([], [], true))).toBe(true);
  });

  it('the dependency index selects exactly the queries commitAffects selects', () => {
    fc.assert(
      fc.property(fc.array(deps, { maxLength: 6 }), deps, fc.boolean(), (queries, written, unknown) => {
        const index = new DependencyIndex();
        const states = queries.map((q, i) => {
          const s = new LiveQueryState(String(i), 'p', {}, null);
          index.set(s, { tables: new Set(q.tables), documents: new Set(q.documents) });
          return s;
        });
        const event = { revision: 1, tables: new Set(written.tables), documents: new Set(written.documents), unknown };
        const hit = new Set<LiveQueryState>();
        index.affected(event, states, (s) => hit.add(s));
        for (const s of states) expect(hit.has(s)).toBe(commitAffects(s.deps!, event));
      }),
      { numRuns: 200 },
    );
  });
});
