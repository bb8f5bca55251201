// The opt-in copy of production data into a new preview: an online SQLite backup of production's
// database (consistent while production keeps writing) into the preview's data directory, written
// under a temporary name and renamed into place, so a preview never starts on half a copy.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { FeatureContext } from '../core/feature-context.js';
import { SvcError } from '../core/errors.js';
import type { ProjectRow } from '../projects/index.js';
import { activeReleaseRow, databasePathOf, projectLayout, releaseConfig } from '../releases/index.js';

/** Copy `parent`'s database (at its active release's database.path) to the same path under `preview`. */
export async function copyProductionData(ctx: FeatureContext, parent: ProjectRow, preview: ProjectRow, options: { local: boolean }): Promise<void> {
  const active = activeReleaseRow(ctx, parent.id);
  if (!active) throw new SvcError('SVC_PREVIEW_DATA_COPY_FAILED', 'Production has no active release, so there is no data to copy.');
  if (!options.local)
    throw new SvcError('SVC_PREVIEW_DATA_COPY_FAILED', "Production's database is not on this host (runner node or swarm), so it cannot be copied.");
  const databasePath = releaseConfig(active).database.path;
  const source = databasePathOf(projectLayout(ctx.config.dataDir, parent.id), databasePath);
  const target = databasePathOf(projectLayout(ctx.config.dataDir, preview.id), databasePath);
  const temporary = `${target}.copying`;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  let db: Database.Database | null = null;
  try {
    db = new Database(source, { readonly: true, fileMustExist: true });
    await db.backup(temporary);
    const fd = openSync(temporary, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    if (error instanceof SvcError) throw error;
    throw new SvcError('SVC_PREVIEW_DATA_COPY_FAILED', `Copying production's database failed: ${(error as Error).message}`, { cause: error });
  } finally {
    db?.close();
  }
}
