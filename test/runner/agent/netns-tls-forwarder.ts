// A byte-level forwarder run inside the control plane's network namespace for the multi-host test:
// TLS terminated on --tls host:port (the address other namespaces dial), plain TCP on --plain host:port,
// and a Unix socket (--unix path) that the test process in the root namespace reaches through the shared
// filesystem. Every connection is piped unchanged to --upstream (the control plane on 127.0.0.1).
import { readFileSync, rmSync } from 'node:fs';
import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { createServer as createTlsServer } from 'node:tls';

const { values } = parseArgs({
  options: {
    tls: { type: 'string' },
    plain: { type: 'string' },
    unix: { type: 'string' },
    upstream: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
  },
});
const split = (value: string | undefined, name: string): { host: string; port: number } => {
  const match = /^(.+):(\d+)$/.exec(value ?? '');
  if (!match) throw new Error(`--${name} host:port is required`);
  return { host: match[1]!, port: Number(match[2]) };
};
const upstream = split(values.upstream, 'upstream');

/** Pipe one accepted connection to the upstream; either side closing or failing closes both. */
function pipeToUpstream(client: Socket): void {
  const server = connect(upstream.port, upstream.host);
  const close = (): void => {
    client.destroy();
    server.destroy();
  };
  client.on('error', close).on('close', close);
  server.on('error', close).on('close', close);
  client.pipe(server).pipe(client);
}

const listen = (server: Server, ...args: [number, string] | [string]): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...(args as [number, string]), () => resolve());
  });

const servers: Server[] = [];
const tlsAt = split(values.tls, 'tls');
const tls = createTlsServer({ cert: readFileSync(values.cert ?? ''), key: readFileSync(values.key ?? '') }, pipeToUpstream);
tls.on('tlsClientError', () => undefined);
await listen(tls, tlsAt.port, tlsAt.host);
servers.push(tls);
if (values.plain) {
  const plainAt = split(values.plain, 'plain');
  const plain = createTcpServer(pipeToUpstream);
  await listen(plain, plainAt.port, plainAt.host);
  servers.push(plain);
}
if (values.unix) {
  rmSync(values.unix, { force: true });
  const unix = createTcpServer(pipeToUpstream);
  await listen(unix, values.unix);
  servers.push(unix);
}
const stop = (): void => {
  for (const server of servers) server.close();
  process.exit(0);
};
process.once('SIGTERM', stop).once('SIGINT', stop);
process.stdout.write(`netns forwarder ready (tls ${tlsAt.host}:${tlsAt.port})\n`);
