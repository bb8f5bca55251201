// Property: for random sequences of runtime mutations (inserts, patches, replaces, deletes, multi-document
// writes) across tables, restoring to a random sequence or time gives exactly the state the database had
// at that committed boundary (the replay model is the snapshot taken right after each commit).
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { openPointInTimeRecovery } from '../../src/recovery/open-point-in-time-recovery.js';
import { restorePointInTime } from '../../src/recovery/restore-point-in-time.js';
import { dumpTables } from './support/dump-tables.js';
import { openApp } from './support/recovery-backend.js';
import { cleanupTempDirs, tempDir, testKey } from './support/temp-dir.js';

afterEach(() => cleanupTempDirs());

const text = fc.string({ maxLength: 12 });
const qty = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }));
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), name: text, qty }),
  fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), qty, flag: fc.boolean() }),
  fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), name: text }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('pair' as const), text }),
  fc.record({ kind: fc.constant('many' as const), texts: fc.array(text, { maxLength: 4 }) }),
);
const step = fc.record({ op, advance: fc.integer({ min: 0, max: 3000 }), flush: fc.boolean() });

describe('point-in-time restore equals a replay of the committed history', () => {
  it('holds for random mutation sequences and random targets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        async (steps, where, byTime) => {
          const dir = tempDir();
          const clock = manualClock(5_000_000);
          const { db, engine } = openApp(join(dir, 'app.db'));
          const recovery = await openPointInTimeRecovery(db, { directory: join(dir, 'repo'), encryptionKey: testKey, exportIntervalMs: false, clock });
          try {
            const snapshots = [dumpTables(db.sqlite)];
            const times = [clock.now()];
            const ids: string[] = [];
            for (const { op: o, advance, flush } of steps) {
              clock.advance(advance);
              const pick = (n: number): string => ids[n % Math.max(1, ids.length)] ?? 'items_00000000000000000000';
              try {
                if (o.kind === 'add') ids.push(engine.runMutation<string>('items/add', { name: o.name, qty: o.qty }, null).value);
                else if (o.kind === 'set') engine.runMutation('items/set', { id: pick(o.pick), qty: o.qty, flag: o.flag }, null);
                else if (o.kind === 'rename') engine.runMutation('items/rename', { id: pick(o.pick), name: o.name }, null);
                else if (o.kind === 'remove') engine.runMutation('items/remove', { id: pick(o.pick) }, null);
                else if (o.kind === 'pair') ids.push(engine.runMutation<string[]>('notes/pair', { text: o.text }, null).value[1]!);
                else engine.runMutation('notes/addMany', { texts: o.texts }, null);
              } catch {
                // A rejected mutation commits nothing; the model is unchanged.
              }
              const seq = recovery.status().committedThrough;
              if (seq === snapshots.length) {
                snapshots.push(dumpTables(db.sqlite));
                times.push(clock.now());
              }
              expect(seq).toBe(snapshots.length - 1);
              if (flush) await recovery.flush();
            }
            await recovery.flush();
            const last = snapshots.length - 1;
            const target = join(dir, 'restored.db');
            if (byTime) {
              const asOf = Math.floor(times[0]! + where * (times[last]! - times[0]! + 1000));
              let expected = 0;
              times.forEach((time, seq) => {
                if (time <= asOf) expected = seq;
              });
              const result = await restorePointInTime({
                directory: join(dir, 'repo'),
                encryptionKey: testKey,
                targetPath: target,
                asOf,
                confirmation: 'restore point in time',
              });
              expect(result.sequence).toBe(expected);
              expect(dumpTables(target)).toEqual(snapshots[expected]);
            } else {
              const sequence = Math.floor(where * last);
              const result = await restorePointInTime({
                directory: join(dir, 'repo'),
                encryptionKey: testKey,
                targetPath: target,
                throughSequence: sequence,
                confirmation: 'restore point in time',
              });
              expect(result.sequence).toBe(sequence);
              expect(dumpTables(target)).toEqual(snapshots[sequence]);
            }
          } finally {
            await recovery.close();
            db.close();
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
