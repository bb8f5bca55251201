// B13: signed audit export of 10,000 audit events — sign into the durable outbox (SQLite, WAL, synchronous
// FULL), deliver to an in-process destination — in events/s, against the real floor: bare Ed25519 signing
// (node:crypto sign) of the same events' canonical encodings, nothing else. A second row times
// verifyAuditExport over the delivered entries against bare Ed25519 verification of the same signatures
// (Ed25519 verification costs several signatures, so the two floors are kept apart).
// Interleaved rounds (rounds.ts); each round exports into a fresh database (set-up not timed).
import { sign, verify } from 'node:crypto';
import { canonicalEvent, canonicalEventJson } from '../../src/ops/audit-export/canonical-event.js';
import { createAuditExporter } from '../../src/ops/audit-export/audit-exporter.js';
import type { AuditExportEntry } from '../../src/ops/audit-export/export-entry.js';
import { auditRowsAfter } from '../../src/ops/audit-export/outbox-store.js';
import { verifyAuditExport } from '../../src/ops/audit-export/verify-audit-export.js';
import { ed25519, openExportDb } from '../ops/audit-export/export-db.js';
import type { BenchResult } from './bench-types.js';
import { interleave, median, pairedRatios, roundsFrom } from './rounds.js';

const EVENTS = Number(process.env.SVC_B13_EVENTS ?? 10_000);
const ROUNDS = roundsFrom(process.env.SVC_B13_ROUNDS);

const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

/** Run B13 and return the export and verification rows. */
export default async function b13(): Promise<BenchResult[]> {
  const keys = ed25519();
  // The baseline's messages: the canonical encoding of every event, built before any timing.
  const reference = openExportDb();
  let messages: Buffer[];
  try {
    reference.append(EVENTS);
    messages = auditRowsAfter(reference.db, 0, EVENTS).map((row) => Buffer.from(canonicalEventJson(row.seq, canonicalEvent(row)), 'utf8'));
  } finally {
    reference.close();
  }

  const verifyTimes = { ours: [] as number[], baseline: [] as number[] };
  // CPU seconds of each side (this process: signing, SQLite, delivery): commit fsyncs wait on a shared disk.
  const cpu = { ours: [] as number[], baseline: [] as number[] };
  const cpuSeconds = (since: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1e6;
  };
  const exportOnce = async (): Promise<number> => {
    const env = openExportDb();
    try {
      env.append(EVENTS);
      const received: AuditExportEntry[] = [];
      const exporter = createAuditExporter({
        db: env.db,
        clock: env.clock,
        privateKey: keys.privateKey,
        keyId: 'bench',
        destination: async (entries) => void received.push(...entries),
        batchSize: 1000,
      });
      let start = process.hrtime.bigint();
      const cpuStart = process.cpuUsage();
      const pass = await exporter.runOnce();
      const exportSeconds = seconds(start);
      cpu.ours.push(cpuSeconds(cpuStart));
      start = process.hrtime.bigint();
      const checkpoint = verifyAuditExport(received, { bench: keys.publicKey });
      verifyTimes.ours.push(seconds(start));
      if (pass.delivered !== EVENTS || checkpoint.sequence !== EVENTS)
        throw new Error(`B13: exported ${pass.delivered}, verified through ${checkpoint.sequence}, expected ${EVENTS}`);
      return EVENTS / exportSeconds;
    } finally {
      env.close();
    }
  };
  const bareOnce = async (): Promise<number> => {
    let start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const signatures = messages.map((message) => sign(null, message, keys.privateKey));
    const signSeconds = seconds(start);
    cpu.baseline.push(cpuSeconds(cpuStart));
    start = process.hrtime.bigint();
    for (let i = 0; i < messages.length; i++) if (!verify(null, messages[i]!, keys.publicKey, signatures[i]!)) throw new Error('B13: bare verify failed');
    verifyTimes.baseline.push(seconds(start));
    return EVENTS / signSeconds;
  };

  const paired = await interleave(ROUNDS, exportOnce, bareOnce);
  const exportRatio = pairedRatios(paired);
  // Rates: events/s = EVENTS / seconds, so the rate ratio is baseline seconds ÷ our seconds.
  const verifyRatio = pairedRatios({ ours: verifyTimes.baseline, baseline: verifyTimes.ours });
  const cpuRatio = pairedRatios({ ours: cpu.baseline, baseline: cpu.ours });
  const rate = (times: number[]): number => Math.round(EVENTS / median(times));
  return [
    {
      id: 'B13',
      name: `signed audit export of ${EVENTS} events into the outbox + delivery ÷ bare Ed25519 signing (events/s, median of ${ROUNDS} rounds; higher is better)`,
      value: Math.round(median(paired.ours)),
      unit: 'events/s',
      baseline: Math.round(median(paired.baseline)),
      baselineName: 'bare node:crypto Ed25519 sign of the same canonical events',
      ratio: exportRatio.median,
      range: { min: exportRatio.min, max: exportRatio.max, rounds: exportRatio.rounds },
      target: '>= 0.50x',
      pass: exportRatio.median >= 0.5,
    },
    {
      id: 'B13',
      name: `same export, CPU per event ÷ bare Ed25519 signing (events per CPU-second, median of ${ROUNDS} rounds; higher is better)`,
      value: Math.round(EVENTS / median(cpu.ours)),
      unit: 'events/cpu-s',
      baseline: Math.round(EVENTS / median(cpu.baseline)),
      baselineName: 'bare node:crypto Ed25519 sign of the same canonical events',
      ratio: cpuRatio.median,
      range: { min: cpuRatio.min, max: cpuRatio.max, rounds: cpuRatio.rounds },
      target: '>= 0.50x',
      pass: cpuRatio.median >= 0.5,
    },
    {
      id: 'B13',
      name: `verifyAuditExport over ${EVENTS} entries ÷ bare Ed25519 verify (events/s, median of ${ROUNDS} rounds; higher is better)`,
      value: rate(verifyTimes.ours),
      unit: 'events/s',
      baseline: rate(verifyTimes.baseline),
      baselineName: 'bare node:crypto Ed25519 verify of the same signatures',
      ratio: verifyRatio.median,
      range: { min: verifyRatio.min, max: verifyRatio.max, rounds: verifyRatio.rounds },
      target: '>= 0.50x',
      pass: verifyRatio.median >= 0.5,
    },
  ];
}

if (process.argv[1]?.endsWith('b13-audit-export.bench.ts')) {
  for (const row of await b13()) console.log(JSON.stringify(row));
}
