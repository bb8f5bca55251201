// Apply a release's migrations in a child process: SQLite work of any length never blocks the control
// plane's event loop (health, the API of every other project, the ingress keep answering).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../src/core/clock.js';
import { SvcError, type ErrorCode } from '../../src/core/errors.js';
import { isExecutable } from '../../src/core/find-executable.js';
import type { MigrateOptions, MigrateResult } from './apply-migrations.js';

type Answer = { ok: true; result: MigrateResult } | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown> | null };

/** `node <migrate-main>` (with tsx when running from sources, as the tests do). */
function migrateEntry(): { entry: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith('.ts');
  return { entry: join(dirname(here), ts ? 'migrate-main.ts' : 'migrate-main.js'), execArgv: ts ? ['--import', 'tsx'] : [] };
}

/** util-linux's setpriv, when present: it makes the child die with the control plane. */
function findSetpriv(): string | null {
  return ['/usr/bin/setpriv', '/bin/setpriv'].find(isExecutable) ?? null;
}

/**
 * migrateDatabase in a child process, with the same result and the same error codes. The history rows
 * get the caller's clock time at the start; a child that dies without answering is SVC_MIGRATION_FAILED
 * (the migration runs in one transaction, so nothing of it was applied).
 */
export function migrateOffThread(options: MigrateOptions): Promise<MigrateResult> {
  const { clock, ...rest } = options;
  const { entry, execArgv } = migrateEntry();
  return new Promise((resolve, reject) => {
    // If the control plane dies mid-migration the child must die too (its open transaction is then
    // rolled back): the next start restores the snapshot, which must never race a still-running writer.
    const setpriv = findSetpriv();
    const argv = [...execArgv, entry];
    const child = spawn(setpriv ?? process.execPath, setpriv ? ['--pdeathsig', 'SIGKILL', process.execPath, ...argv] : argv, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    let stderr = '';
    let answered = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.once('message', (raw) => {
      answered = true;
      const answer = raw as Answer;
      if (answer.ok) resolve(answer.result);
      else reject(new SvcError(answer.code, answer.message, answer.details ? { details: answer.details } : undefined));
    });
    child.once('error', (error) => {
      if (!answered)
        reject(
          new SvcError('SVC_MIGRATION_FAILED', `The migration process could not run: ${error.message}; no pending migration was applied`, { cause: error }),
        );
    });
    child.once('exit', (code, signal) => {
      if (answered) return;
      reject(
        new SvcError(
          'SVC_MIGRATION_FAILED',
          `The migration process ended (${signal ?? `status ${code}`}) without an answer; no pending migration was applied. ${stderr.trim().slice(-500)}`,
        ),
      );
    });
    child.send({ ...rest, now: (clock ?? systemClock).now() });
  });
}
