// An ingress upgrade without a moment of not listening: the running ingress starts its successor
// (detached, its own session, so it outlives its parent) and sends it the listening socket over the
// IPC channel (Node passes the handle with SCM_RIGHTS: both processes hold the same socket). The
// successor loads the saved route table, accepts on the socket, takes over the command socket and
// reports `ready`; only then does the old one stop accepting and finish what it has.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import type { Server } from 'node:net';
import { basename, isAbsolute } from 'node:path';
import { z } from 'zod';
import type { RequestRecord } from '../request-record.js';
import type { EdgeStatus } from './edge-control.js';
import { requestRecordSchema } from './edge-session.js';
import type { IngressStartMessage } from './start-message.js';

/** From the predecessor to its successor over their IPC channel. */
export type HandoffMessage = { type: 'listener' } | { type: 'records'; records: RequestRecord[]; dropped: number };
/** The successor asks for the socket once it listens for messages (one sent earlier could be lost). */
type SuccessorMessage = { type: 'want-listener' } | IngressStartMessage;
const recordsSchema = z.object({ type: z.literal('records'), records: z.array(requestRecordSchema), dropped: z.number().int().min(0) });

const ENTRY_NAMES = new Set(['ingress-main.js', 'ingress-main.ts', 'svc-ingress.js']);

/** Whether `entry` may be run as a successor: an absolute path to an ingress entry that exists. */
export function acceptableEntry(entry: string): boolean {
  return isAbsolute(entry) && ENTRY_NAMES.has(basename(entry)) && existsSync(entry);
}

export interface Successor {
  status: EdgeStatus;
  /** Send the successor a message while the channel is open (records left at the end). */
  send(message: HandoffMessage): Promise<void>;
}

export interface SuccessorOptions {
  /** The successor's entry (absolute; `.ts` runs under tsx). */
  entry: string;
  /** Its arguments (`--listen … --data … --hold-ms … --drain-ms …`); `--handoff` is added. */
  args: string[];
  /** The listening public server. */
  server: Server;
  logFile: string;
  /** How long the successor may take to serve (default 20 s). */
  timeoutMs?: number;
}

/** Start the successor, hand it the listening socket, resolve once it serves (it is killed if it never does). */
export async function startSuccessor(options: SuccessorOptions): Promise<Successor> {
  const execArgv = options.entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const logFd = openSync(options.logFile, 'a', 0o600);
  const child = spawn(process.execPath, [...execArgv, options.entry, ...options.args, '--handoff'], {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
    env: process.env,
  });
  closeSync(logFd);
  child.on('error', () => undefined);
  const timeoutMs = options.timeoutMs ?? 20_000;
  const message = await new Promise<IngressStartMessage | { type: 'exited'; detail: string }>((resolve) => {
    const timer = setTimeout(() => resolve({ type: 'exited', detail: `did not serve within ${timeoutMs} ms` }), timeoutMs);
    child.on('message', (m: SuccessorMessage) => {
      if (m.type === 'want-listener') {
        child.send({ type: 'listener' } satisfies HandoffMessage, options.server);
        return;
      }
      clearTimeout(timer);
      resolve(m);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ type: 'exited', detail: `exited with ${code ?? signal}` });
    });
  });
  if (message.type !== 'ready') {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw new Error(`the successor ingress ${message.type === 'failed' ? `failed: ${message.message}` : message.detail}`);
  }
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  return {
    status: message.status,
    send(m) {
      return new Promise((resolve) => {
        if (!child.connected) return resolve();
        child.send(m, (error) => resolve(void error));
      });
    },
  };
}

/** In the successor: the listening socket its predecessor sends, and the records it passes on. */
export function receiveListener(onRecords: (records: RequestRecord[], dropped: number) => void, timeoutMs = 10_000): Promise<Server> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening socket from the predecessor within ${timeoutMs} ms`)), timeoutMs);
    process.on('message', (message: HandoffMessage, handle?: unknown) => {
      const records = recordsSchema.safeParse(message);
      if (records.success) onRecords(records.data.records, records.data.dropped);
      if (message?.type !== 'listener' || handle === undefined) return;
      clearTimeout(timer);
      resolve(handle as Server);
    });
    process.send?.({ type: 'want-listener' } satisfies SuccessorMessage);
  });
}
