// Run Debian's caddy (/usr/bin/caddy) as a child process for tests: generated Caddyfile on loopback
// high ports, internal CA (`local_certs`), admin API off, storage in a temp dir, on-demand TLS that
// asks svc's GET /_svc/tls/ask, reverse proxy to svc (which routes by Host). Mirrors docs/domains.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from '../support/free-port.js';

export const CADDY = '/usr/bin/caddy';

export interface CaddyOptions {
  dir: string;
  /** svc's listener, e.g. 127.0.0.1:7070. */
  svc: string;
  askToken: string;
  /** host:port the `ask` URL points at (default: svc itself; tests put a recording hop in between). */
  askVia?: string;
}

/** The Caddyfile of docs/domains.md with test ports and storage. */
export function caddyfile(o: { svc: string; askVia?: string; askToken: string; httpPort: number; httpsPort: number; storage: string }): string {
  return `{
	admin off
	local_certs
	skip_install_trust
	storage file_system {
		root ${o.storage}
	}
	http_port ${o.httpPort}
	https_port ${o.httpsPort}
	on_demand_tls {
		ask http://${o.askVia ?? o.svc}/_svc/tls/ask?token=${o.askToken}
	}
}

https:// {
	tls internal {
		on_demand
	}
	reverse_proxy ${o.svc}
}
`;
}

export interface RunningCaddy {
  httpsPort: number;
  child: ChildProcess;
  output(): string;
  /** PEM of Caddy's local root CA (exists once Caddy provisioned its PKI). */
  rootCa(): string;
  stop(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Start caddy and wait until its HTTPS port accepts connections. */
export async function startCaddy(o: CaddyOptions): Promise<RunningCaddy> {
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const storage = join(o.dir, 'caddy-storage');
  const file = join(o.dir, 'Caddyfile');
  writeFileSync(file, caddyfile({ svc: o.svc, ...(o.askVia ? { askVia: o.askVia } : {}), askToken: o.askToken, httpPort, httpsPort, storage }));
  const child = spawn(CADDY, ['run', '--config', file, '--adapter', 'caddyfile'], {
    env: { PATH: process.env.PATH ?? '', HOME: o.dir, XDG_DATA_HOME: join(o.dir, 'xdg-data'), XDG_CONFIG_HOME: join(o.dir, 'xdg-config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (output = (output + c).slice(-100_000)));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (output = (output + c).slice(-100_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + 20_000;
  while (!(await portOpen(httpsPort))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`caddy did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const rootPath = join(storage, 'pki', 'authorities', 'local', 'root.crt');
  return {
    httpsPort,
    child,
    output: () => output,
    rootCa: () => (existsSync(rootPath) ? readFileSync(rootPath, 'utf8') : ''),
    stop,
  };
}

/** GET over TLS to 127.0.0.1:<port> with SNI and Host = `servername`, trusting `ca` (like curl --resolve). */
export function httpsGet(port: number, servername: string, path: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername, ca, headers: { host: servername }, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** One forwarded ask: the domain Caddy asked about and svc's answer. */
export interface AskRecord {
  domain: string | null;
  status: number;
}

/** A plain HTTP hop that forwards GET requests to svc and records what Caddy asked and svc answered. */
export async function startAskRecorder(svc: string): Promise<{ address: string; asks: AskRecord[]; close(): Promise<void> }> {
  const asks: AskRecord[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://recorder');
    fetch(`http://${svc}${url.pathname}${url.search}`)
      .then(async (answer) => {
        const body = await answer.text();
        asks.push({ domain: url.searchParams.get('domain'), status: answer.status });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(body);
      })
      .catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    asks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
