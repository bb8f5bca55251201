// Helpers for ingress tests: real upstream node processes and a control plane listening on port 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { testPlatformConfig, type PlatformConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { buildControlPlane, type ControlPlane } from '../../src/platform.js';

const fixture = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));

export interface UpstreamProcess {
  name: string;
  port: number;
  child: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

/** Start one upstream app process on a free loopback port. */
export async function startUpstream(name: string): Promise<UpstreamProcess> {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, NAME: name, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`upstream ${name} did not start: ${stderr}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
    });
    child.once('exit', (code) => reject(new Error(`upstream ${name} exited ${code}: ${stderr}`)));
  });
  return {
    name,
    port,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

export interface ListeningPlane {
  plane: ControlPlane;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  dir: string;
  close(): Promise<void>;
}

/** A control plane on a temp data dir, listening on 127.0.0.1:0 (so requests pass the ingress hook). */
export async function startListeningPlane(overrides: Partial<PlatformConfig> = {}): Promise<ListeningPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ingress-'));
  const config = testPlatformConfig({ dataDir: join(dir, 'data'), logLevel: 'silent', ...overrides });
  const plane = await buildControlPlane({ config, logger: createLogger({ level: 'silent' }) });
  await plane.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (plane.app.server.address() as AddressInfo).port;
  return {
    plane,
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    async close() {
      await plane.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
