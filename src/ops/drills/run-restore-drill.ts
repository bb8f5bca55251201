// One restore drill: decrypt the newest retained backup into a private temp copy, boot the
// application on it, run loopback HTTP checks, and return a receipt. Production data is never
// touched: the only path handed to `boot` is inside a fresh temp directory removed afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DrillReceipt } from './next-due-drill.js';
import { defaultHttpClient } from '../../core/http/http-client.js';

/** A booted drill application: a loopback base URL and a way to stop it. */
export interface DrillApp {
  url: string;
  stop(): Promise<void>;
}

export interface RestoreDrillOptions {
  projectId: string;
  /** The newest retained backup file. */
  backupFile: string;
  /** Decrypt `backupFile` into `destPath` (e.g. backups' `decryptBackupFile` with the wrapped key). */
  decrypt(backupFile: string, destPath: string, signal: AbortSignal): Promise<void>;
  boot(projectId: string, options: { databasePath: string; signal: AbortSignal }): Promise<DrillApp>;
  checks: readonly { name: string; path: string; status: number }[];
  timeoutMs: number;
  now: () => number;
  /** Aborts the drill early (e.g. the monitor stops); recorded like a timeout. */
  signal?: AbortSignal;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Run one drill to a receipt; never throws (failures are the receipt's outcome and error). */
export async function runRestoreDrill(options: RestoreDrillOptions): Promise<DrillReceipt> {
  const startedAt = options.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`restore drill exceeded ${options.timeoutMs} ms`)), options.timeoutMs);
  const stop = () => controller.abort(new Error('restore drill aborted (the monitor stopped)'));
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  const { signal } = controller;
  const receipt = (outcome: DrillReceipt['outcome'], code: string | null, error: string | null, checks: DrillReceipt['checks'] = []): DrillReceipt => ({
    projectId: options.projectId,
    backupFile: options.backupFile,
    startedAt,
    finishedAt: options.now(),
    outcome,
    checks,
    code: outcome !== 'passed' && signal.aborted ? 'SVC_OPS_DRILL_TIMEOUT' : code,
    error: outcome !== 'passed' && signal.aborted ? message(signal.reason) : error,
  });
  const dir = await mkdtemp(join(tmpdir(), 'svc-drill-'));
  let app: DrillApp | undefined;
  try {
    const databasePath = join(dir, 'app.db');
    try {
      await options.decrypt(options.backupFile, databasePath, signal);
      signal.throwIfAborted();
    } catch (error) {
      return receipt('setup-failed', 'SVC_OPS_DRILL_SETUP', message(error));
    }
    const checks: DrillReceipt['checks'] = [];
    try {
      app = await options.boot(options.projectId, { databasePath, signal });
      const base = new URL(app.url);
      if (!LOOPBACK.has(base.hostname)) throw new Error(`drill app must listen on loopback, not ${base.hostname}`);
      for (const check of options.checks) {
        let status: number | null = null;
        try {
          // Redirects are answers here, never followed; the drill's signal bounds the check.
          const answer = await defaultHttpClient.open({ method: 'GET', url: new URL(check.path, base), signal, timeoutMs: null });
          status = answer.status;
          answer.discard();
        } catch (error) {
          if (signal.aborted) throw error;
        }
        checks.push({ name: check.name, path: check.path, expected: check.status, status, ok: status === check.status });
      }
    } catch (error) {
      return receipt('failed', 'SVC_OPS_DRILL_FAILED', message(error), checks);
    }
    const failed = checks.filter((c) => !c.ok);
    if (failed.length === 0) return receipt('passed', null, null, checks);
    return receipt('failed', 'SVC_OPS_DRILL_FAILED', `checks failed: ${failed.map((c) => c.name).join(', ')}`, checks);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    await app?.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
