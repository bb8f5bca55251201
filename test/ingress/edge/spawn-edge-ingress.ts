// Start src/ingress/edge/ingress-main.ts as a real child process (tsx, current sources) and wait for
// its `ready` message: the tests of the ingress process all begin this way.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EdgeStatus } from '../../../src/ingress/edge/edge-control.js';
import { repoRoot } from '../../support/repo-root.js';

export interface SpawnedEdgeIngress {
  child: ChildProcess;
  status: EdgeStatus;
  port: number;
}

export interface SpawnEdgeIngressOptions {
  dir: string;
  holdMs: number;
  /** Default an ephemeral loopback port. */
  listen?: string;
  /** Flags for node itself (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** A built entry such as `bin/svc-ingress.js`, run as it is; default the sources through tsx. */
  entry?: string;
}

/** Spawn the ingress for data directory `dir`. */
export async function spawnEdgeIngress(options: SpawnEdgeIngressOptions): Promise<SpawnedEdgeIngress> {
  const entry = options.entry === undefined ? ['--import', 'tsx', join(repoRoot, 'src/ingress/edge/ingress-main.ts')] : [options.entry];
  const args = [...(options.nodeArgs ?? []), ...entry, '--listen', options.listen ?? '127.0.0.1:0', '--data', options.dir, '--hold-ms', String(options.holdMs)];
  // stdout is not read by any test: ignoring it keeps a chatty ingress from blocking on a full pipe.
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const message = await new Promise<{ type: string; status: EdgeStatus }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { type: string; status: EdgeStatus }));
    child.once('exit', (code) => reject(new Error(`ingress exited ${code}`)));
  });
  if (message.type !== 'ready') throw new Error(`the ingress sent ${message.type} instead of ready`);
  return { child, status: message.status, port: message.status.address.port };
}
