// Copies committed journal entries to the repository. The newest segment is extended (rewritten under its
// new name, then head.json, then the shorter file removed) until it holds SEGMENT_MAX_ENTRIES entries, so
// a long epoch has few files. exportedThrough advances only after the segment and head.json are fsynced
// and renamed; a crash at any point leaves the previous head and its segments valid. Exports never overlap.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { RECOVERY_FORMAT } from './recovery-keys.js';
import { JOURNAL_TABLE } from './recovery-store.js';
import { readSegmentLines, repositoryPaths, segmentName, writeSegment, writeSignedDocument, type SegmentFile } from './repository.js';

/** Entries per segment file at most (bounds the rewrite cost of extending a segment and restore memory). */
export const SEGMENT_MAX_ENTRIES = 1_000;

/** Where the exporter writes and what it starts from. */
export interface ExporterSettings {
  readonly db: BetterSqlite3.Database;
  readonly directory: string;
  readonly epochId: string;
  readonly metaKey: Buffer;
  readonly clock: Clock;
  readonly exportedThrough: number;
  /** The published segment ending at exportedThrough, if any (it is extended by the next export). */
  readonly newestSegment: SegmentFile | null;
}

/** Serialized exporter of one epoch. */
export class JournalExporter {
  private readonly s: ExporterSettings;
  private readonly select: BetterSqlite3.Statement<[number, number, number], { sequence: number; digest: string; line: string }>;
  private chain: Promise<void> = Promise.resolve();
  private through: number;
  private newest: { first: number; last: number } | null;

  constructor(settings: ExporterSettings) {
    this.s = settings;
    this.through = settings.exportedThrough;
    this.newest = settings.newestSegment?.last === settings.exportedThrough ? settings.newestSegment : null;
    this.select = settings.db.prepare(
      `SELECT sequence, digest, line FROM main.${JOURNAL_TABLE} WHERE sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?`,
    );
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
    const journal = repositoryPaths(this.s.directory).journal;
    while (this.through < committedThrough) {
      if (!this.s.db.open) return;
      const extend = this.newest !== null && this.newest.last - this.newest.first + 1 < SEGMENT_MAX_ENTRIES ? this.newest : null;
      const room = extend === null ? SEGMENT_MAX_ENTRIES : SEGMENT_MAX_ENTRIES - (extend.last - extend.first + 1);
      const rows = this.select.all(this.through, committedThrough, room);
      if (rows.length === 0 || rows[0]!.sequence !== this.through + 1) {
        throw new SvcError('SVC_RECOVERY_REPOSITORY_MISMATCH', `Journal entry ${this.through + 1} is no longer in the database; start a new epoch.`, {
          details: { sequence: this.through + 1 },
        });
      }
      const previous = extend === null ? [] : await readSegmentLines(this.s.directory, { name: segmentName(extend.first, extend.last), ...extend });
      if (extend !== null && previous.length !== extend.last - extend.first + 1) {
        throw new SvcError('SVC_RECOVERY_REPOSITORY_INVALID', `Segment ${segmentName(extend.first, extend.last)} does not hold the entries its name claims.`);
      }
      const first = extend?.first ?? rows[0]!.sequence;
      const last = rows[rows.length - 1]!;
      await writeSegment(this.s.directory, first, last.sequence, [...previous, ...rows.map((row) => row.line)]);
      const head = {
        format: RECOVERY_FORMAT,
        epochId: this.s.epochId,
        exportedThrough: last.sequence,
        headDigest: last.digest,
        updatedAt: Math.floor(this.s.clock.now()),
      } as const;
      await writeSignedDocument(repositoryPaths(this.s.directory).head, head, this.s.metaKey);
      this.through = last.sequence;
      this.newest = { first, last: last.sequence };
      // The shorter segment is superseded only now that head.json points past it.
      if (extend !== null) await rm(join(journal, segmentName(extend.first, extend.last)), { force: true });
    }
  }
}
