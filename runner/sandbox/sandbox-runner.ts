// The sandboxed process runner (the default): every app runs in a bubblewrap sandbox of its own, under
// a uid of its own project when svc runs as root, with its own network namespace reached through one
// loopback port (a socket forward, see SandboxForward). The sandbox outlives the control plane and is
// re-adopted like a process.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { SvcError } from '../../src/core/errors.js';
import { randomId, type IdGenerator } from '../../src/core/ids.js';
import { processStartTime } from '../../src/core/process-identity.js';
import type { AppRunner, AppStartSpec, RunningApp, RunningAppRecord } from '../app-runner.js';
import { allocatePort } from '../allocate-port.js';
import { linkedPlatformPackage } from '../linked-platform-package.js';
import { ProcessApp } from '../process-app.js';
import type { LogStore } from '../log-store.js';
import { noteSafely, processAppDeps } from '../process-app-deps.js';
import { readRunOffsets, type RunOffsets } from '../run-output.js';
import { sandboxLayout } from '../sandbox-layout.js';
import type { SandboxStatus } from '../sandbox-status.js';
import { buildSandboxCommand, encodeArgs, SANDBOX_FDS, type SandboxForward, type SandboxHost, type SandboxLimits } from './bwrap-args.js';
import { hostForwardState, type ForwardPoll } from './host-forward-state.js';
import { ensureTraversable } from './ensure-traversable.js';
import { grantTree } from './grant-tree.js';
import { SandboxApp } from './sandbox-app.js';
import type { SandboxTools } from './sandbox-host.js';
import { buildSlirpCommand } from './slirp-args.js';
import { waitForLoopback } from './wait-for-loopback.js';

export interface SandboxRunnerOptions {
  runsDir: string;
  logs: LogStore;
  tools: SandboxTools;
  host: SandboxHost;
  network: 'isolated' | 'shared';
  limits: SandboxLimits;
  /** The uid a project's apps run under (root only); undefined runs them as svc's own uid. */
  uidFor?: (projectId: string) => number;
  /** Folders (the platform data directory) from which down to a sandbox's mounts search permission is added. */
  traversableRoots?: readonly string[];
  clock?: Clock;
  ids?: IdGenerator;
  baseEnv?: Readonly<Record<string, string | undefined>>;
  stopGraceMs?: number;
  adoptPollMs?: number;
  tailPollMs?: number;
  /** How long sandbox and network set-up may take (default 10 s). */
  setupTimeoutMs?: number;
  /** Why sandboxes cannot be created on this host: every start is refused with it. */
  unavailable?: SvcError;
  /** Picks a free loopback port (default: ask the kernel). */
  pickPort?: () => Promise<number>;
}

/** Read a stream until `parse` accepts what arrived, or the stream ends, or time runs out. */
function readUntil<T>(stream: Readable, parse: (text: string) => T | null, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (error: Error | null, value?: T): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      if (error) reject(error);
      else resolve(value as T);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const value = parse(text);
      if (value !== null) done(null, value);
    };
    const onEnd = (): void => done(new Error(`${what} ended before it was ready`));
    const timer = setTimeout(() => done(new Error(`${what} was not ready within ${timeoutMs} ms`)), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
  });
}

function parseInfo(text: string): number | null {
  try {
    const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

class PortTaken extends Error {}

/** Pure: whether the launcher's output says the host forward could not bind 127.0.0.1:`port`. */
export function forwardBindRefused(output: string, port: number): boolean {
  return output.includes(`127.0.0.1:${port}`) && /Address already in use/.test(output);
}

// A picked port may be bound by another process before the host forward binds it; the start is then
// repeated on another port (only when the caller did not ask for a port).
const PORT_ATTEMPTS = 5;

function netNamespace(pid: number | 'self'): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return null;
  }
}

/** Runs every app in a bubblewrap sandbox. */
export class SandboxRunner implements AppRunner {
  readonly kind = 'sandbox' as const;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: SandboxRunnerOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomId;
  }

  status(): SandboxStatus {
    const problem = this.options.unavailable;
    return {
      available: !problem,
      network: this.options.network,
      perProjectUid: this.options.uidFor !== undefined,
      problem: problem ? { code: problem.code, message: problem.message } : null,
    };
  }

  /** Start a release in a new sandbox; resolves once the app process was started inside it. */
  async start(spec: AppStartSpec): Promise<RunningApp> {
    if (this.options.unavailable) throw this.options.unavailable;
    for (let attempt = 1; ; attempt++) {
      const port = spec.port ?? (await this.pickPort());
      try {
        return await this.startOnce(spec, port);
      } catch (error) {
        if (!(error instanceof PortTaken)) throw error;
        if (spec.port !== undefined || attempt >= PORT_ATTEMPTS)
          throw new SvcError('SVC_SANDBOX_START_FAILED', `Could not start ${spec.releaseId} in its sandbox: ${error.message}`);
      }
    }
  }

  private async startOnce(spec: AppStartSpec, port: number): Promise<RunningApp> {
    const uid = this.options.uidFor?.(spec.projectId);
    const platformPackageDir = linkedPlatformPackage(spec.releaseDir);
    const id = this.ids('run');
    const runDir = join(this.options.runsDir, id);
    const forward =
      this.options.network === 'isolated' && this.options.tools.forward ? { ...this.options.tools.forward, socketDir: join(runDir, 'app') } : undefined;
    const cmd = buildSandboxCommand(spec, {
      tools: this.options.tools,
      host: this.options.host,
      port,
      network: this.options.network,
      limits: this.options.limits,
      ownUid: uid !== undefined,
      baseEnv: this.options.baseEnv ?? process.env,
      ...(platformPackageDir ? { platformPackageDir } : {}),
      ...(forward ? { forward } : {}),
    });
    mkdirSync(spec.dataDir, { recursive: true });
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    if (forward) this.prepareSocketDir(runDir, forward, uid);
    if (uid !== undefined) {
      const mounts = sandboxLayout(spec).mounts;
      for (const mount of mounts.filter((m) => m.writable)) grantTree(mount.src, uid);
      const roots = this.options.traversableRoots ?? [this.options.runsDir];
      for (const path of [...mounts.map((m) => m.src), this.options.host.resolvConf, this.options.host.hostsFile, ...(forward ? [forward.socketDir] : [])])
        ensureTraversable(path, roots);
    }
    const timeoutMs = this.options.setupTimeoutMs ?? 10_000;
    let launcher: ChildProcess | null = null;
    let slirp: ChildProcess | null = null;
    let initPid: number | null = null;
    try {
      launcher = await this.spawnLauncher(cmd.launcher, runDir, uid);
      const [argsFd, infoFd, blockFd, syncFd] = [SANDBOX_FDS.args, SANDBOX_FDS.info, SANDBOX_FDS.block, SANDBOX_FDS.sync].map(
        (fd) => (launcher!.stdio as readonly unknown[])[fd],
      ) as [Writable, Readable, Writable, Readable];
      // A sandbox that dies early resets these pipes (e.g. before reading the block byte). Its exit reports
      // that; an unhandled stream error would instead end svc itself.
      for (const pipe of [argsFd, infoFd, blockFd, syncFd]) pipe.on('error', () => undefined);
      argsFd.end(encodeArgs(cmd.bwrapArgs));
      initPid = await readUntil(infoFd, parseInfo, timeoutMs, 'the sandbox');
      infoFd.destroy();
      let net: { pid: number; startTime: string | null } | null = null;
      if (this.options.network === 'isolated') {
        slirp = await this.startNetwork(initPid, runDir, syncFd, timeoutMs);
        net = { pid: slirp.pid!, startTime: processStartTime(slirp.pid!) };
        await this.awaitHostForward(launcher.pid!, port, timeoutMs);
      }
      syncFd.destroy();
      blockFd.end(Buffer.from([1]));
      const record: RunningAppRecord = {
        kind: 'sandbox',
        id,
        projectId: spec.projectId,
        releaseId: spec.releaseId,
        port,
        host: '127.0.0.1',
        startedAt: this.clock.now(),
        pid: launcher.pid!,
        processStartTime: processStartTime(launcher.pid!),
        runDir,
        sandbox: {
          initPid,
          initStartTime: processStartTime(initPid),
          ...(net ? { netPid: net.pid, netStartTime: net.startTime } : {}),
          ...(uid === undefined ? {} : { uid }),
        },
      };
      this.note(
        spec.projectId,
        spec.releaseId,
        `started ${spec.entry} in a sandbox (pid ${launcher.pid}${uid === undefined ? '' : `, uid ${uid}`}, ${this.options.network} network) on 127.0.0.1:${port}`,
      );
      return new SandboxApp(record, this.appDeps(record, { stdout: 0, stderr: 0 }), { child: launcher });
    } catch (error) {
      for (const pid of [initPid, slirp?.pid]) if (pid) tryKill(pid);
      if (launcher?.pid) tryKill(-launcher.pid);
      const said = [tailOf(join(runDir, 'stderr')), tailOf(join(runDir, 'net.log'))].filter(Boolean).join(' | ');
      rmSync(runDir, { recursive: true, force: true });
      if (error instanceof PortTaken || error instanceof SvcError) throw error;
      // The host forward can fail its bind before the sandbox reports in; the sandbox then just ends.
      if (forwardBindRefused(said, port)) throw new PortTaken(`127.0.0.1:${port} is taken`);
      throw new SvcError(
        'SVC_SANDBOX_START_FAILED',
        `Could not start ${spec.releaseId} in its sandbox: ${(error as Error).message}${said ? ` (${said})` : ''}`,
        { cause: error },
      );
    }
  }

  /** The forward's socket folder: the app's own (both forwarders run as its uid); the run folder passable. */
  private prepareSocketDir(runDir: string, forward: SandboxForward, uid: number | undefined): void {
    mkdirSync(forward.socketDir, { mode: 0o700 });
    if (uid === undefined) return;
    chownSync(forward.socketDir, uid, uid);
    chmodSync(runDir, 0o711);
  }

  /** Wait until the host forward listens on `port`; PortTaken when it could not bind it. */
  private async awaitHostForward(launcherPid: number, port: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const poll: ForwardPoll = { baseline: null, lastReadAt: 0 };
    for (;;) {
      const state = hostForwardState(launcherPid, port, poll);
      if (state === 'listening') return;
      if (state === 'gone') throw new PortTaken(`127.0.0.1:${port} is taken`);
      if (Date.now() > deadline) throw new Error(`the host port forward did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /** Re-attach to a sandbox recorded by an earlier control plane, if its launcher still runs. */
  async adopt(record: RunningAppRecord): Promise<RunningApp | null> {
    if (record.kind === 'process' && record.pid !== undefined && record.runDir) {
      // Started unsandboxed by an earlier svc (or with SVC_SANDBOX=off): stop it so that the release is
      // started again inside a sandbox, never left running beside its sandboxed successor.
      const legacy = new ProcessApp(record, this.appDeps(record, readRunOffsets(record.runDir)), { pollMs: this.options.adoptPollMs ?? 500 });
      if (!legacy.exited) {
        this.note(record.projectId, record.releaseId, `stopping unsandboxed pid ${record.pid} to restart it in a sandbox`);
        await legacy.stop();
      }
      return null;
    }
    if (record.kind !== 'sandbox' || record.pid === undefined || !record.runDir || !record.sandbox) return null;
    const app = new SandboxApp(record, this.appDeps(record, readRunOffsets(record.runDir)), { pollMs: this.options.adoptPollMs ?? 500 });
    if (app.exited) return null;
    this.note(record.projectId, record.releaseId, `re-adopted sandbox pid ${record.pid} on ${record.host}:${record.port}`);
    return app;
  }

  private async spawnLauncher(cmd: ReturnType<typeof buildSandboxCommand>['launcher'], runDir: string, uid: number | undefined): Promise<ChildProcess> {
    const out = openSync(join(runDir, 'stdout'), 'a', 0o600);
    const err = openSync(join(runDir, 'stderr'), 'a', 0o600);
    try {
      const child = spawn(cmd.file, [...cmd.args], {
        cwd: '/',
        env: { ...cmd.env },
        detached: true,
        stdio: ['ignore', out, err, 'pipe', 'pipe', 'pipe', 'pipe'],
        ...(uid === undefined ? {} : { uid, gid: uid }),
      });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      child.unref();
      return child;
    } finally {
      closeSync(out);
      closeSync(err);
    }
  }

  /** slirp4netns on the sandbox's network namespace, tied to the sandbox's lifetime by `syncPeer`. */
  private async startNetwork(initPid: number, runDir: string, syncPeer: Readable, timeoutMs: number): Promise<ChildProcess> {
    // Attaching to our own namespace would reconfigure the host's network: refuse anything but a new one.
    const target = netNamespace(initPid);
    if (!target || target === netNamespace('self')) throw new SvcError('SVC_SANDBOX_START_FAILED', 'The sandbox did not get a network namespace of its own');
    await waitForLoopback(initPid, timeoutMs);
    const apiSocket = join(runDir, 'net.sock');
    const unshare = this.options.tools.unshare;
    const cmd = buildSlirpCommand({ slirp4netns: this.options.tools.slirp4netns!, sandboxPid: initPid, apiSocket, ...(unshare ? { unshare } : {}) });
    const log = openSync(join(runDir, 'net.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(cmd.file, [...cmd.args], { cwd: '/', env: { ...cmd.env }, detached: true, stdio: ['ignore', log, log, syncPeer, 'pipe'] });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } finally {
      closeSync(log);
    }
    child.unref();
    const ready = child.stdio[4] as Readable;
    await readUntil(ready, (text) => (text.length > 0 ? true : null), timeoutMs, 'the app network');
    ready.destroy();
    return child;
  }

  private pickPort(): Promise<number> {
    return this.options.pickPort ? this.options.pickPort() : allocatePort('127.0.0.1');
  }

  private note(projectId: string, releaseId: string, line: string): void {
    noteSafely(this.options.logs, projectId, releaseId, line);
  }

  private appDeps(record: RunningAppRecord, offsets: RunOffsets): ConstructorParameters<typeof SandboxApp>[1] {
    return processAppDeps(record, offsets, { ...this.options, clock: this.clock });
  }
}

/** The last lines a failed set-up wrote (bubblewrap and slirp4netns explain themselves there). */
function tailOf(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-3).join(' ').slice(0, 500);
  } catch {
    return '';
  }
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
