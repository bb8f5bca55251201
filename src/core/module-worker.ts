// A worker thread running one module of this package: its compiled JavaScript (dist/), or its
// TypeScript source through tsx when svc itself runs from sources (tests, benchmarks), where a worker
// does not inherit the loader of the thread that starts it.
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, workerData, type WorkerOptions } from 'node:worker_threads';
import { SvcError, type ErrorCode } from './errors.js';

/**
 * Start `entry` (a file URL beside the caller, written with its `.ts` or `.js` ending as the caller's
 * own URL has) in a worker thread.
 */
export function startModuleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!fileURLToPath(entry).endsWith('.ts')) return new Worker(entry, options);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** The URL of `name` (without ending) beside `callerUrl`, with the caller's ending (.ts from sources, .js built). */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}

/** An error crossing a thread boundary: an SvcError's code, message and details, or a plain message. */
export interface WireError {
  code: ErrorCode | null;
  message: string;
  details: Record<string, unknown> | null;
}

/** An error as it crosses the thread boundary. */
export function toWireError(error: unknown): WireError {
  if (error instanceof SvcError) return { code: error.code, message: error.message, details: error.details ?? null };
  return { code: null, message: error instanceof Error ? error.message : String(error), details: null };
}

/** The error again on the other side: an SvcError of the same code, message and details, or a plain Error. */
export function fromWireError(wire: WireError): Error {
  return wire.code ? new SvcError(wire.code, wire.message, wire.details ? { details: wire.details } : undefined) : new Error(wire.message);
}

type WorkerAnswer = { ok: true; result: unknown } | { ok: false; error: WireError };

/**
 * Run one job in a new worker thread of `entry` (which answers once with `answerFromWorker`): its result,
 * or its error with the same code; a worker that ends without answering is SVC_INTERNAL naming `what`.
 */
export function runWorkerJob<T>(entry: URL, job: unknown, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startModuleWorker(entry, { workerData: job });
    let answered = false;
    worker.once('message', (answer: WorkerAnswer) => {
      answered = true;
      if (answer.ok) resolve(answer.result as T);
      else reject(fromWireError(answer.error));
    });
    const lost = (reason: string): void => {
      if (!answered) reject(new SvcError('SVC_INTERNAL', `The ${what} worker stopped without an answer (${reason}); the work did not complete.`));
      answered = true;
    };
    worker.once('error', (error) => lost(error.message));
    worker.once('exit', (code) => lost(`exit ${code}`));
  });
}

/** In a worker started by runWorkerJob: lower its priority, run `work` on the job, post the one answer. */
export function answerFromWorker(work: (job: never) => Promise<unknown>): void {
  yieldToEventLoop();
  work(workerData as never)
    .then((result) => parentPort!.postMessage({ ok: true, result }))
    .catch((error: unknown) => parentPort!.postMessage({ ok: false, error: toWireError(error) }));
}

/**
 * Called first thing in a worker: lower this thread's scheduling priority (Linux nice values are per
 * thread), so on a busy machine the event loop thread is scheduled ahead of the bulk work it handed off.
 */
export function yieldToEventLoop(): void {
  try {
    setPriority(0, WORKER_NICE);
  } catch {
    // Not permitted here: the thread keeps the process's priority.
  }
}

const WORKER_NICE = 10;
