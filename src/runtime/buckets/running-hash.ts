// Running SHA-256 of uploads, computed on a worker thread so hashing overlaps with receiving and writing
// instead of competing with them for the event loop. States are forked per chunk (a failed chunk leaves the
// committed state untouched); messages to one worker are ordered, so forks see every earlier update.
import { Worker } from 'node:worker_threads';
import { RuntimeError } from '../errors.js';

/** A SHA-256 state that can be forked, fed and finished. */
export interface RunningHash {
  update(data: Uint8Array): void;
  /** An independent copy of the state so far. */
  copy(): RunningHash;
  /** Resolves once every update sent so far was applied (bounds the worker's backlog to one chunk). */
  flush(): Promise<void>;
  /** Finish: the hex digest; the state is released. */
  digest(): Promise<string>;
  /** Release the state without a digest. */
  dispose(): void;
}

/** Creates running hashes on one lazily started worker. */
export interface HashPool {
  create(): RunningHash;
  close(): Promise<void>;
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const states = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'update') { states.get(m.key).update(new Uint8Array(m.data)); return; }
    if (m.op === 'new') { states.set(m.key, createHash('sha256')); return; }
    if (m.op === 'copy') { states.set(m.key, states.get(m.from).copy()); return; }
    if (m.op === 'drop') { states.delete(m.key); return; }
    if (m.op === 'flush') { parentPort.postMessage({ seq: m.seq, ok: states.has(m.key) }); return; }
    if (m.op === 'digest') { const h = states.get(m.key); states.delete(m.key); parentPort.postMessage({ seq: m.seq, ok: !!h, hex: h ? h.digest('hex') : null }); return; }
  } catch (error) {
    parentPort.postMessage({ seq: m.seq ?? -1, ok: false, error: String(error) });
  }
});
`;

/** Start a pool backed by one worker thread (created on first use, unref'd, restarted if it dies). */
export function createHashPool(): HashPool {
  let worker: Worker | null = null;
  let generation = 0;
  let nextKey = 1;
  let nextSeq = 1;
  const waiting = new Map<number, { resolve: (m: { ok: boolean; hex?: string | null }) => void; reject: (e: Error) => void }>();

  const start = (): Worker => {
    if (worker !== null) return worker;
    const w = new Worker(WORKER_SOURCE, { eval: true });
    w.unref();
    w.on('message', (m: { seq: number; ok: boolean; hex?: string | null }) => {
      waiting.get(m.seq)?.resolve(m);
      waiting.delete(m.seq);
    });
    const fail = (error: unknown): void => {
      if (worker === w) {
        worker = null;
        generation += 1;
      }
      for (const entry of waiting.values()) entry.reject(new RuntimeError('SVC_BUCKET_STORAGE', `The hashing worker stopped: ${String(error)}`));
      waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(`exit ${code}`));
    worker = w;
    return w;
  };

  const ask = (message: Record<string, unknown>): Promise<{ ok: boolean; hex?: string | null }> =>
    new Promise((resolve, reject) => {
      const seq = nextSeq++;
      waiting.set(seq, { resolve, reject });
      start().postMessage({ ...message, seq });
    });

  const handle = (key: number, born: number): RunningHash => {
    const live = (): boolean => born === generation && worker !== null;
    const lost = (): never => {
      throw new RuntimeError('SVC_BUCKET_STORAGE', 'The running hash was lost; resume the upload.');
    };
    return {
      update(data) {
        if (!live()) lost();
        const copy = new Uint8Array(data);
        worker!.postMessage({ op: 'update', key, data: copy.buffer }, [copy.buffer]);
      },
      copy() {
        if (!live()) lost();
        const key2 = nextKey++;
        worker!.postMessage({ op: 'copy', from: key, key: key2 });
        return handle(key2, born);
      },
      async flush() {
        if (!live() || !(await ask({ op: 'flush', key })).ok) lost();
      },
      async digest() {
        if (!live()) lost();
        const reply = await ask({ op: 'digest', key });
        if (!reply.ok || typeof reply.hex !== 'string') lost();
        return reply.hex as string;
      },
      dispose() {
        if (live()) worker!.postMessage({ op: 'drop', key });
      },
    };
  };

  return {
    create() {
      const w = start();
      const key = nextKey++;
      w.postMessage({ op: 'new', key });
      return handle(key, generation);
    },
    async close() {
      const w = worker;
      worker = null;
      generation += 1;
      if (w !== null) await w.terminate();
    },
  };
}
