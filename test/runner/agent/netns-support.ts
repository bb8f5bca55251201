// Multi-host test support: two network namespaces joined by a veth pair, a throwaway CA with a server
// certificate made by the openssl CLI, processes started inside a namespace as their own process group,
// and a loopback TCP listener in the root namespace relayed to a Unix socket served from inside one.
// Every command is argv run without a shell (src/core/command.ts + src/core/exec.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { command } from '../../../src/core/command.js';
import { execChecked, execCommand } from '../../../src/core/exec.js';
import { repoRoot } from '../../support/repo-root.js';

/** Two namespaces `a` and `b`, veth-connected as `addressA` and `addressB` (/24). */
export interface NetnsPair {
  a: string;
  b: string;
  addressA: string;
  addressB: string;
  /** Kill whatever still runs in either namespace, then delete both (the veth pair goes with them). */
  remove(): Promise<void>;
}

const ip = (...args: string[]) => execChecked(command('ip', args));

/** Create the pair; throws SVC_COMMAND_FAILED / SVC_COMMAND_NOT_FOUND when namespaces are unavailable. */
export async function createNetnsPair(addressA = '10.231.0.1', addressB = '10.231.0.2'): Promise<NetnsPair> {
  const suffix = randomBytes(3).toString('hex');
  const a = `svcmh-a-${suffix}`;
  const b = `svcmh-b-${suffix}`;
  const created: string[] = [];
  const remove = async (): Promise<void> => {
    for (const ns of created) {
      const pids = await execCommand(command('ip', ['netns', 'pids', ns])).catch(() => null);
      for (const pid of (pids?.stdout ?? '')
        .split('\n')
        .map(Number)
        .filter((n) => n > 1)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await execCommand(command('ip', ['netns', 'delete', ns])).catch(() => undefined);
    }
  };
  try {
    for (const ns of [a, b]) {
      await ip('netns', 'add', ns);
      created.push(ns);
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    // Created directly inside the namespaces, so the root namespace never holds the interfaces.
    await ip('link', 'add', 'veth-a', 'netns', a, 'type', 'veth', 'peer', 'name', 'veth-b', 'netns', b);
    await ip('-n', a, 'addr', 'add', `${addressA}/24`, 'dev', 'veth-a');
    await ip('-n', b, 'addr', 'add', `${addressB}/24`, 'dev', 'veth-b');
    await ip('-n', a, 'link', 'set', 'veth-a', 'up');
    await ip('-n', b, 'link', 'set', 'veth-b', 'up');
  } catch (error) {
    await remove();
    throw error;
  }
  return { a, b, addressA, addressB, remove };
}

/** Paths of a throwaway CA and a server certificate/key for one IP address. */
export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
}

/** Make a CA and a server certificate with `ipAddress` as IP SAN (P-256, one day) in `dir`. */
export async function makeTestPki(dir: string, ipAddress: string): Promise<TestPki> {
  const p = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execChecked(command('openssl', args));
  await openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    p('ca.key'),
    '-out',
    p('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=svc multihost test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  await openssl(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    p('server.key'),
    '-out',
    p('server.csr'),
    '-subj',
    `/CN=${ipAddress}`,
  );
  await writeFile(
    p('server.ext'),
    `subjectAltName=IP:${ipAddress}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n`,
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    p('server.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca.key'),
    '-CAcreateserial',
    '-out',
    p('server.pem'),
    '-days',
    '1',
    '-extfile',
    p('server.ext'),
  );
  return { caCert: p('ca.pem'), serverCert: p('server.pem'), serverKey: p('server.key') };
}

/** A process running inside a namespace, leader of its own process group. */
export interface NetnsProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM to the process, SIGKILL to its whole group after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Start argv inside `ns` (`ip netns exec` execs it, so the pid is the program's) with exactly `env`. */
export function spawnInNetns(ns: string, argv: string[], env: Record<string, string>): NetnsProcess {
  const child = spawn('ip', ['netns', 'exec', ns, ...argv], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false });
  let out = '';
  const collect = (chunk: Buffer): void => {
    out = (out + chunk.toString()).slice(-100_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone
    }
  };
  return {
    child,
    output: () => out,
    exited,
    async stop(graceMs = 30_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => killGroup('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      killGroup('SIGKILL');
      return child.exitCode;
    },
  };
}

/** Wait until the process output matches `ready` (bounded); rejects with the output if it exits first. */
export async function waitForOutput(proc: NetnsProcess, ready: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = ready.exec(proc.output());
    if (found) return found;
    if (proc.child.exitCode !== null || proc.child.signalCode !== null)
      throw new Error(`process exited with ${proc.child.exitCode ?? proc.child.signalCode} before ${ready}:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${ready} within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Run `node --import tsx <entry> ...args` (current sources) inside `ns`. */
export const tsxArgv = (entry: string, ...args: string[]): string[] => [process.execPath, '--import', 'tsx', join(repoRoot, entry), ...args];

/** A loopback listener in this (root) namespace relaying each connection to a Unix socket. */
export async function relayToUnixSocket(socketPath: string): Promise<{ url: string; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(socketPath);
    open.add(client).add(upstream);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
