// Spawning `svc-runner provider` and `svc-runner agent` as real processes (tsx, current sources) for
// the node end-to-end tests, collecting their output and stopping them cleanly (or with SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { command } from '../../../src/core/command.js';
import { execCommand } from '../../../src/core/exec.js';

const entry = join(import.meta.dirname, '../../../runner/runner-main-cli.ts');

/** One runner process with its output so far. */
export interface RunnerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM (drain), SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Start `svc-runner <args>` with exactly `env` (plus PATH/HOME) and wait until stdout matches `ready`. */
export async function startRunner(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<RunnerProcess & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc: RunnerProcess = {
    child,
    output: () => out,
    exited,
    async stop(graceMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc-runner ${args[0]} not ready in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      out = (out + chunk.toString()).slice(-100_000);
      const found = ready.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc-runner ${args[0]} exited with ${code} before it was ready:\n${out}`));
    });
  });
  return { ...proc, match };
}

/** Names of the podman containers labelled with a project (running or not). */
export async function projectContainers(projectId: string): Promise<string[]> {
  const listed = await execCommand(
    command('podman', ['--runtime', 'runc', 'ps', '-a', '--filter', `label=svc.project=${projectId}`, '--format', '{{.Names}}']),
  );
  return listed.stdout.split('\n').filter(Boolean);
}

/** Remove every container of a project (test cleanup). */
export async function removeProjectContainers(projectId: string): Promise<void> {
  for (const name of await projectContainers(projectId)) await execCommand(command('podman', ['--runtime', 'runc', 'rm', '--force', '--time', '0', name]));
}
