// Copies committed journal entries to the repository: one new segment file per export, then head.json.
// exportedThrough advances only after both are fsynced and renamed; exports never run concurrently.
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { RECOVERY_FORMAT } from './recovery-keys.js';
import { JOURNAL_TABLE } from './recovery-store.js';
import { repositoryPaths, writeSegment, writeSignedDocument } from './repository.js';

/** Entries per segment file at most (keeps files and restore memory bounded). */
export const SEGMENT_MAX_ENTRIES = 10_000;

/** Where the exporter writes and what it starts from. */
export interface ExporterSettings {
  readonly db: BetterSqlite3.Database;
  readonly directory: string;
  readonly epochId: string;
  readonly metaKey: Buffer;
  readonly clock: Clock;
  readonly exportedThrough: number;
  readonly headDigest: string;
}

/** Serialized exporter of one epoch. */
export class JournalExporter {
  private readonly s: ExporterSettings;
  private readonly select: BetterSqlite3.Statement<[number, number, number], { sequence: number; digest: string; line: string }>;
  private chain: Promise<void> = Promise.resolve();
  private through: number;
  private digest: string;

  constructor(settings: ExporterSettings) {
    this.s = settings;
    this.through = settings.exportedThrough;
    this.digest = settings.headDigest;
    this.select = settings.db.prepare(`SELECT sequence, digest, line FROM main.${JOURNAL_TABLE} WHERE sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?`);
  }

  /** Highest sequence durably in the repository. */
  get exportedThrough(): number {
    return this.through;
  }

  /** Export every entry up to `committedThrough`; resolves when head.json says so. */
  export(committedThrough: number): Promise<void> {
    const run = this.chain.then(() => this.exportNow(committedThrough));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async exportNow(committedThrough: number): Promise<void> {
    while (this.through < committedThrough) {
      if (!this.s.db.open) return;
      const rows = this.select.all(this.through, committedThrough, SEGMENT_MAX_ENTRIES);
      if (rows.length === 0 || rows[0]!.sequence !== this.through + 1) {
        throw new SvcError('SVC_RECOVERY_REPOSITORY_MISMATCH', `Journal entry ${this.through + 1} is no longer in the database; start a new epoch.`, { details: { sequence: this.through + 1 } });
      }
      const last = rows[rows.length - 1]!;
      await writeSegment(this.s.directory, rows[0]!.sequence, last.sequence, rows.map((row) => row.line));
      const head = { format: RECOVERY_FORMAT, epochId: this.s.epochId, exportedThrough: last.sequence, headDigest: last.digest, updatedAt: Math.floor(this.s.clock.now()) } as const;
      await writeSignedDocument(repositoryPaths(this.s.directory).head, head, this.s.metaKey);
      this.through = last.sequence;
      this.digest = last.digest;
    }
  }
}
