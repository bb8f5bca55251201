import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { auditExportStatus, createAuditExporter, exportBackoffMs, type AuditExportDestination } from '../../../src/ops/audit-export/audit-exporter.js';
import type { AuditExportEntry } from '../../../src/ops/audit-export/export-entry.js';
import { verifyAuditExport } from '../../../src/ops/audit-export/verify-audit-export.js';
import { ed25519, openExportDb, type ExportDb } from './export-db.js';

const keys = ed25519();

/** A destination that deduplicates by sequence + digest, as docs/audit-export.md asks of destinations. */
function collectingDestination() {
  const received = new Map<number, AuditExportEntry>();
  const batches: AuditExportEntry[][] = [];
  let failNext = 0;
  const destination: AuditExportDestination = async (entries) => {
    batches.push(structuredClone(entries));
    if (failNext > 0) {
      failNext--;
      throw new Error('destination unavailable');
    }
    for (const e of entries) {
      const seen = received.get(e.sequence);
      if (seen && seen.digest !== e.digest) throw new Error(`conflicting entry ${e.sequence}`);
      received.set(e.sequence, e);
    }
  };
  return { destination, received, batches, fail: (n: number) => (failNext = n), ordered: () => [...received.values()].sort((a, b) => a.sequence - b.sequence) };
}

describe('audit exporter', () => {
  let env: ExportDb | undefined;
  afterEach(() => env?.close());

  it('signs into the outbox before delivery, retries identical entries, and advances the checkpoint on ack', async () => {
    env = openExportDb();
    env.append(25);
    const dest = collectingDestination();
    const exporter = createAuditExporter({
      db: env.db,
      clock: env.clock,
      privateKey: keys.privateKey,
      keyId: 'k1',
      destination: dest.destination,
      batchSize: 10,
    });
    dest.fail(1);
    const first = await exporter.runOnce();
    expect(first).toMatchObject({ signed: 25, delivered: 0 });
    expect(first.deliveryError).toBeDefined();
    expect((env.db.prepare('SELECT COUNT(*) AS n FROM audit_export_outbox').get() as { n: number }).n).toBe(25);
    expect(auditExportStatus(env.db, { keyId: 'k1' })).toMatchObject({ checkpoint: { sequence: 0 }, pending: 25, attempts: 1, signedThrough: 25 });
    // Backoff holds the retry until the clock passes it.
    expect((await exporter.runOnce()).delivered).toBe(0);
    expect(dest.batches).toHaveLength(1);
    env.clock.advance(exportBackoffMs(0, 300_000));
    const second = await exporter.runOnce();
    expect(second).toMatchObject({ signed: 0, delivered: 25 });
    expect(dest.batches[1]).toEqual(dest.batches[0]); // identical signed entries on retry
    const cp = verifyAuditExport(dest.ordered(), { k1: keys.publicKey });
    expect(cp.sequence).toBe(25);
    expect(auditExportStatus(env.db, { keyId: 'k1' })).toMatchObject({ checkpoint: cp, pending: 0, attempts: 0, lastError: null });
    // Signed rows are immutable.
    expect(() => env!.db.prepare("UPDATE audit_export_outbox SET entry = '{}' WHERE sequence = 1").run()).toThrow(/immutable/);
  });

  it('removing the option stops export without deleting anything; restoring it resumes the same chain', async () => {
    env = openExportDb();
    env.append(5);
    const dest = collectingDestination();
    const make = () => createAuditExporter({ db: env!.db, clock: env!.clock, privateKey: keys.privateKey, keyId: 'k1', destination: dest.destination });
    await make().runOnce();
    const before = verifyAuditExport(dest.ordered(), { k1: keys.publicKey });
    // Option removed: no exporter runs while the log keeps growing; nothing is deleted.
    env.append(7);
    expect(auditExportStatus(env.db, undefined)).toMatchObject({ configured: false, checkpoint: before, auditThrough: 12, signedThrough: 5 });
    const resumed = await make().runOnce();
    expect(resumed).toMatchObject({ signed: 7, delivered: 7 });
    const all = dest.ordered();
    expect(verifyAuditExport(all, { k1: keys.publicKey })).toEqual({ sequence: 12, digest: all[11]!.digest });
    expect(verifyAuditExport(all.slice(5), { k1: keys.publicKey }, before).sequence).toBe(12);
  });

  it('non-contiguous audit ids give an explicit error and nothing past the gap is signed', async () => {
    env = openExportDb();
    env.append(3);
    env.db
      .prepare(
        `INSERT INTO audit_events (seq, id, kind, organization_id, project_id, actor_type, actor_id, actor_name, metadata, created_at)
      VALUES (9, 'evt_gap', 'project.create', 'org_1', NULL, 'user', 'usr_1', NULL, '{}', 1)`,
      )
      .run();
    const dest = collectingDestination();
    const exporter = createAuditExporter({ db: env.db, clock: env.clock, privateKey: keys.privateKey, keyId: 'k1', destination: dest.destination });
    let caught: unknown;
    try {
      await exporter.runOnce();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe('SVC_AUDIT_EXPORT_NONCONTIGUOUS');
    expect(dest.ordered().map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(auditExportStatus(env.db, { keyId: 'k1' })).toMatchObject({ signedThrough: 3, lastError: expect.stringMatching(/contiguous/) });
  });

  it('the loop runs on the injected timer and stop() aborts a hanging destination', async () => {
    env = openExportDb();
    env.append(2);
    const timers: (() => void)[] = [];
    let sawAbort = false;
    const exporter = createAuditExporter({
      db: env.db,
      clock: env.clock,
      privateKey: keys.privateKey,
      keyId: 'k1',
      schedule: (fn) => {
        timers.push(fn);
        return () => undefined;
      },
      destination: (_entries, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('aborted'));
          });
        }),
    });
    exporter.start();
    expect(timers).toHaveLength(1);
    timers[0]!();
    await new Promise((r) => setTimeout(r, 20));
    await exporter.stop();
    expect(sawAbort).toBe(true);
    expect(auditExportStatus(env.db, { keyId: 'k1' })).toMatchObject({ pending: 2, attempts: 1 });
  });

  it('rejects a non-Ed25519 key', () => {
    env = openExportDb();
    expect(() => createAuditExporter({ db: env!.db, clock: env!.clock, privateKey: keys.publicKey, keyId: 'k1', destination: async () => undefined })).toThrow(
      SvcError,
    );
  });
});
