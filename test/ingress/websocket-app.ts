// fixtures/apps/websocket-echo run as a plain process on a free loopback port (its source needs no
// build: node built-ins only), for ingress tests that need a real app speaking WebSocket.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../support/repo-root.js';

export interface EchoApp {
  host: string;
  port: number;
  child: ChildProcess;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
}

export async function startEchoApp(release: string): Promise<EchoApp> {
  const child = spawn(process.execPath, [join(repoRoot, 'fixtures/apps/websocket-echo/src/server.mjs')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', SVC_RELEASE_ID: release },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`websocket-echo exited ${code}`)));
  });
  return {
    host: '127.0.0.1',
    port,
    child,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
