// B13: signed audit export of 10,000 audit events — sign into the durable outbox (SQLite, WAL,
// synchronous FULL), deliver to an in-process destination, then verify the whole export with
// verifyAuditExport — in events/s. Baseline in the same run: plain SHA-256 over the same
// canonical events (no signing, storage or verification). ratio = export / baseline (higher is better).
import { auditRowsAfter } from '../../src/ops/audit-export/outbox-store.js';
import { canonicalEvent, eventDigest } from '../../src/ops/audit-export/canonical-event.js';
import { createAuditExporter } from '../../src/ops/audit-export/audit-exporter.js';
import type { AuditExportEntry } from '../../src/ops/audit-export/export-entry.js';
import { verifyAuditExport } from '../../src/ops/audit-export/verify-audit-export.js';
import { ed25519, openExportDb } from '../ops/audit-export/export-db.js';
import type { BenchResult } from './bench-types.js';

const EVENTS = Number(process.env.SVC_B13_EVENTS ?? 10_000);

/** Run B13 once and return export, verify-only and baseline rows. */
export default async function b13(): Promise<BenchResult[]> {
  const env = openExportDb();
  try {
    env.append(EVENTS);
    const keys = ed25519();
    const received: AuditExportEntry[] = [];
    const exporter = createAuditExporter({
      db: env.db,
      clock: env.clock,
      privateKey: keys.privateKey,
      keyId: 'bench',
      destination: async (entries) => void received.push(...entries),
      batchSize: 1000,
    });

    // Baseline: plain SHA-256 of the same canonical events (read once, hashed in memory).
    const rows = auditRowsAfter(env.db, 0, EVENTS);
    const baseStart = process.hrtime.bigint();
    for (const row of rows) eventDigest(row.seq, canonicalEvent(row));
    const baseSeconds = Number(process.hrtime.bigint() - baseStart) / 1e9;

    const start = process.hrtime.bigint();
    const pass = await exporter.runOnce();
    const exportedAt = process.hrtime.bigint();
    const checkpoint = verifyAuditExport(received, { bench: keys.publicKey });
    const end = process.hrtime.bigint();
    if (pass.delivered !== EVENTS || checkpoint.sequence !== EVENTS)
      throw new Error(`B13: exported ${pass.delivered}, verified through ${checkpoint.sequence}, expected ${EVENTS}`);

    const totalSeconds = Number(end - start) / 1e9;
    const verifySeconds = Number(end - exportedAt) / 1e9;
    const baseline = EVENTS / baseSeconds;
    const exportRate = EVENTS / totalSeconds;
    const verifyRate = EVENTS / verifySeconds;
    return [
      {
        id: 'B13',
        name: `signed audit export + verification of ${EVENTS} events (events/s; ratio = value/baseline, higher is better)`,
        value: Math.round(exportRate),
        unit: 'events/s',
        baseline: Math.round(baseline),
        baselineName: 'plain SHA-256 over the same canonical events',
        ratio: exportRate / baseline,
        target: `all ${EVENTS} verified`,
        pass: true,
      },
      {
        id: 'B13',
        name: `verifyAuditExport alone over ${EVENTS} entries (events/s; ratio = value/baseline)`,
        value: Math.round(verifyRate),
        unit: 'events/s',
        baseline: Math.round(baseline),
        baselineName: 'plain SHA-256 over the same canonical events',
        ratio: verifyRate / baseline,
      },
    ];
  } finally {
    env.close();
  }
}

if (process.argv[1]?.endsWith('b13-audit-export.bench.ts')) {
  for (const row of await b13()) console.log(JSON.stringify(row));
}
