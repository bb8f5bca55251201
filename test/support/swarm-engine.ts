// A throwaway single-node Docker Swarm for the real-engine suites. dockerd runs in its own network
// namespace, joined to the host by a veth pair (host 10.213.K.1, node 10.213.K.2), with its own
// data root, exec root, pidfile and unix socket in a temp dir. Docker's iptables rules (tenant
// isolation depends on them) therefore land inside that namespace and never on the test machine.
// stop() leaves no process, mount, link, namespace or directory behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { command } from '../../src/core/command.js';
import { execChecked, execCommand } from '../../src/core/exec.js';
import { alive } from './process-alive.js';
import { commandComponent, requireComponents, rootComponent, type ComponentGate } from './require-components.js';
import { processesUnder, terminate, unmountUnder } from './swarm-engine-cleanup.js';

export interface SwarmEngine {
  /** `unix:///…/docker.sock`, for DOCKER_HOST or the engine client. */
  dockerHost: string;
  socketPath: string;
  /** Network namespace name (`/run/netns/<netns>`). */
  netns: string;
  /** The host end of the veth pair: what tasks reach the host (the release endpoint) on. */
  hostAddress: string;
  /** The node's own address (swarm advertise address; host-mode published ports answer here). */
  nodeAddress: string;
  nodeId: string;
  /** dockerd's pid (for tests that check it is gone). */
  pid: number;
  /** Safe to call twice; the second call waits for the first. */
  stop(): Promise<void>;
}

/** The components a real-engine suite needs; under CI a missing one fails the suite. */
export function swarmEngineGate(what: string): ComponentGate {
  return requireComponents(what, [
    rootComponent(),
    commandComponent('dockerd', ['dockerd', '--version']),
    commandComponent('containerd', ['containerd', '--version']),
    commandComponent('ip (iproute2)', ['ip', 'netns', 'list']),
    commandComponent('nsenter', ['nsenter', '--version']),
    commandComponent('iptables', ['iptables', '--version']),
  ]);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const ip = (...args: string[]) => execChecked(command('ip', args));

/** One Engine API call over the unix socket; resolves with the status and raw body. */
function engineCall(socketPath: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ socketPath, method, path: `/v1.41${path}`, headers: payload ? { 'content-type': 'application/json' } : {}, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

interface Slot {
  k: number;
  netns: string;
  hostLink: string;
  nodeLink: string;
}

/** Claim a free 10.213.K.0/30: `ip netns add` fails when the name exists, so parallel files never share one. */
async function claimSlot(): Promise<Slot> {
  const used = (await execChecked(command('ip', ['-o', '-4', 'addr', 'show']))).stdout;
  for (let attempt = 0; attempt < 40; attempt++) {
    const k = 1 + randomInt(250);
    const slot = { k, netns: `svc-swarm-${k}`, hostLink: `svcsw${k}h`, nodeLink: `svcsw${k}n` };
    if (used.includes(` 10.213.${k}.`) || existsSync(`/run/netns/${slot.netns}`)) continue;
    if ((await execCommand(command('ip', ['netns', 'add', slot.netns]))).exitCode !== 0) continue;
    if ((await execCommand(command('ip', ['link', 'add', slot.hostLink, 'type', 'veth', 'peer', 'name', slot.nodeLink]))).exitCode !== 0) {
      await execCommand(command('ip', ['netns', 'del', slot.netns]));
      continue;
    }
    return slot;
  }
  throw new Error('no free 10.213.K.0/30 slot for a test swarm engine');
}

async function wireSlot({ k, netns, hostLink, nodeLink }: Slot): Promise<void> {
  const inNs = (...args: string[]) => ip('-n', netns, ...args);
  await ip('link', 'set', nodeLink, 'netns', netns);
  await ip('addr', 'add', `10.213.${k}.1/30`, 'dev', hostLink);
  await ip('link', 'set', hostLink, 'up');
  await inNs('addr', 'add', `10.213.${k}.2/30`, 'dev', nodeLink);
  await inNs('link', 'set', nodeLink, 'up');
  await inNs('link', 'set', 'lo', 'up');
  await inNs('route', 'add', 'default', 'via', `10.213.${k}.1`);
}

function logTail(dir: string): string {
  try {
    return readFileSync(join(dir, 'dockerd.log'), 'utf8').trim().split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, failed: () => string | null): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problem = failed();
    if (problem) throw new Error(`${what}: ${problem}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Start dockerd in a fresh network namespace and make it a single-node swarm manager. */
export async function startSwarmEngine(): Promise<SwarmEngine> {
  const slot = await claimSlot();
  const dir = mkdtempSync('/tmp/svc-swarm-');
  const socketPath = join(dir, 'docker.sock');
  const execRoot = join(dir, 'exec');
  const hostAddress = `10.213.${slot.k}.1`;
  const nodeAddress = `10.213.${slot.k}.2`;
  let daemon: ChildProcess | undefined;
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (daemon?.pid !== undefined && alive(daemon.pid)) {
        // Leaving first removes the tasks, so dockerd's own shutdown has no container to wait for.
        await engineCall(socketPath, 'POST', '/swarm/leave?force=true', undefined, 20_000).catch(() => undefined);
        await terminate([daemon.pid], 20_000);
      }
      // containerd, shims and their containers name the temp dir in their command lines.
      await terminate(processesUnder(dir), 5_000);
      await unmountUnder(dir);
      await execCommand(command('ip', ['link', 'del', slot.hostLink]));
      await execCommand(command('ip', ['netns', 'del', slot.netns]));
      rmSync(dir, { recursive: true, force: true });
    })());

  try {
    await wireSlot(slot);
    // Our own (empty) config file, so a host /etc/docker/daemon.json never leaks into the test engine.
    writeFileSync(join(dir, 'daemon.json'), '{}\n');
    const log = openSync(join(dir, 'dockerd.log'), 'a');
    // `nsenter --net` (not `ip netns exec`, which remounts /sys and breaks dockerd's cgroup detection).
    daemon = spawn(
      'nsenter',
      [
        `--net=/run/netns/${slot.netns}`,
        'dockerd',
        `--config-file=${join(dir, 'daemon.json')}`,
        `--data-root=${join(dir, 'data')}`,
        `--exec-root=${execRoot}`,
        `--pidfile=${join(dir, 'dockerd.pid')}`,
        `--host=unix://${socketPath}`,
        '--bridge=none',
        '--userland-proxy=false',
        '--no-new-privileges',
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    daemon.unref();
    let exited: string | null = null;
    daemon.once('exit', (code, signal) => (exited = `dockerd exited with ${code ?? signal}:\n${logTail(dir)}`));
    daemon.once('error', (error) => (exited = `dockerd did not start: ${error.message}`));

    await waitFor('dockerd socket', 60_000, async () => ((await engineCall(socketPath, 'GET', '/_ping')).status === 200 ? true : undefined), () => exited);
    const init = await engineCall(socketPath, 'POST', '/swarm/init', { ListenAddr: `${nodeAddress}:2377`, AdvertiseAddr: nodeAddress }, 60_000);
    if (init.status !== 200) throw new Error(`swarm init answered ${init.status}: ${init.body}`);
    const nodeId = JSON.parse(init.body) as string;
    await waitFor(
      'swarm node ready',
      60_000,
      async () => {
        const node = JSON.parse((await engineCall(socketPath, 'GET', `/nodes/${nodeId}`)).body) as { Status?: { State?: string }; ManagerStatus?: { Reachability?: string } };
        return node.Status?.State === 'ready' && node.ManagerStatus?.Reachability === 'reachable' ? true : undefined;
      },
      () => exited,
    );
    return { dockerHost: `unix://${socketPath}`, socketPath, netns: slot.netns, hostAddress, nodeAddress, nodeId, pid: daemon.pid ?? 0, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
