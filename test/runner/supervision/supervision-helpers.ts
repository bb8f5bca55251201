// Helpers for supervision fault tests: `svc-runner provider` as a real child process, /proc probes for
// app processes of a project, a one-writer monitor, and bounded waiting.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderArtifact, ReconcileRequest } from '../../../runner/provider/provider-contract.js';
import type { FenceRuntime } from '../../../runner/supervision/fence-file.js';
import { runtimeAlive } from '../../../runner/supervision/runtime-probe.js';
import { commandComponent } from '../../support/require-components.js';
import { TOKEN } from '../provider/provider-helpers.js';

/** What a real sandbox needs on this host (the supervised sandbox suites fail under CI without them). */
export const sandboxComponents = [commandComponent('bubblewrap', ['bwrap', '--version']), commandComponent('slirp4netns', ['slirp4netns', '--version'])];

/**
 * A temporary folder other users may pass through (mkdtemp makes it 0700): a node's data directory
 * lives inside it, and sandboxed apps run under their project's uid reach their mounts through it.
 */
export async function passableTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o711);
  return dir;
}

// SVC_TEST_RUNNER_ENTRY may name a compiled runner-main-cli.js to run these tests against a build.
const entry = process.env.SVC_TEST_RUNNER_ENTRY ?? join(import.meta.dirname, '../../../runner/runner-main-cli.ts');
const entryArgs = entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry];

export interface ProviderProcess {
  child: ChildProcess;
  url: string;
  /** When the provider printed its listening line (after start-up recovery). */
  listeningAt: number;
  output: () => string;
}

/** Start `svc-runner provider --listen 127.0.0.1:0` on `dataDir`; resolves once it listens. */
export async function startProvider(dataDir: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ProviderProcess> {
  const child = spawn(process.execPath, [...entryArgs, 'provider', '--listen', '127.0.0.1:0'], {
    env: { PATH: process.env.PATH, SVC_PROVIDER_TOKEN: TOKEN, SVC_RUNNER_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`provider did not listen: ${out}`)), timeoutMs);
    const onData = (): void => {
      const match = /listening on (http:\/\/[^/\s]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`provider exited (${code}): ${out}`));
    });
  });
  return { child, url, listeningAt: Date.now(), output: () => out };
}

/**
 * Pids of live app processes (`node`) whose environment names this project. Only node counts: a sandbox
 * forks a shell for its port forwarder, which holds the app's environment for the instant before it
 * becomes socat with an empty one, and is no second app.
 */
export function appPids(projectId: string): number[] {
  const needle = `\0SVC_PROJECT_ID=${projectId}\0`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/^\S+ \(.*\) [ZX]/.test(stat)) continue;
      if (!/^\S+ \(node\) /.test(stat)) continue;
      if (`\0${readFileSync(`/proc/${name}/environ`, 'utf8')}`.includes(needle)) pids.push(Number(name));
    } catch {
      // Gone or not ours to read.
    }
  }
  return pids;
}

/** Samples the number of app processes of a project until stopped; `max` is the most seen at once. */
export function writerMonitor(projectId: string, everyMs = 25): { max: () => number; stop: () => void } {
  let max = 0;
  const timer = setInterval(() => (max = Math.max(max, appPids(projectId).length)), everyMs);
  return { max: () => max, stop: () => clearInterval(timer) };
}

/** Poll until `check` holds (or throw after `timeoutMs`). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A reconcile request for a project. */
export function reconcileRequest(projectId: string, fence: number, artifact: ProviderArtifact | null, signal = new AbortController().signal): ReconcileRequest {
  return {
    operation: { projectId, id: `op_${fence}`, fence },
    desired: { generation: fence, state: artifact ? 'running' : 'stopped', releaseId: artifact ? `rel_${fence}` : null },
    artifact,
    signal,
  };
}

/** Whether a process is stopped (SIGSTOP), from /proc. */
export function isStopped(pid: number): boolean {
  try {
    return / \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Samples until stopped: counts the moments a fence file was already gone while its runtime still ran.
 * The fence is looked at first, so a count above 0 means the runtime outlived its fence.
 */
export function fenceOrderMonitor(path: string, runtime: FenceRuntime, everyMs = 5): { violations: () => number; stop: () => Promise<void> } {
  let violations = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const fenced = existsSync(path);
      if (!fenced && (await runtimeAlive(runtime)) !== false) violations++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    violations: () => violations,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
