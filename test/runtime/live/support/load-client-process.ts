// Parent side of sse-load-client.ts: spawn it (tsx, IPC) and send commands one at a time.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LoadCommand, LoadReply } from './sse-load-client.js';

/** A running load-client child process. */
export interface LoadClient {
  send<T extends LoadReply['type']>(cmd: LoadCommand): Promise<Extract<LoadReply, { type: T }>>;
  stop(): Promise<void>;
}

/** Start the load client as a child process. */
export function startLoadClient(): LoadClient {
  const child: ChildProcess = fork(join(import.meta.dirname, 'sse-load-client.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    send(cmd) {
      return new Promise((resolve, reject) => {
        const onMessage = (reply: LoadReply): void => {
          child.off('exit', onExit);
          if (reply.type === 'error') reject(new Error(reply.message));
          else resolve(reply as never);
        };
        const onExit = (code: number | null): void => reject(new Error(`load client exited (${code})`));
        child.once('message', onMessage);
        child.once('exit', onExit);
        child.send(cmd);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Percentile (nearest rank) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
