// Runs the CLI in-process with captured writers, and as a real child process, for test/cli.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../cli/main.js';
import type { CliEffects, SelfCommand } from '../../cli/context.js';
import type { Writer } from '../../cli/writer.js';
import { finalJson } from '../support/run-cli.js';

/** Repository root (two levels above this file). */
export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The source entry of the CLI. */
export const RUN_TS = join(ROOT, 'cli', 'run.ts');
/** How a `svc` child (e.g. build.command) runs from any cwd: node + absolute tsx loader + cli/run.ts. */
export const SELF: SelfCommand = {
  file: process.execPath,
  args: ['--import', pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, RUN_TS],
};

/** Result of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, or its last line after streamed JSON lines (throws when it is not JSON). */
  json<T = Record<string, unknown>>(): T;
}

class Capture implements Writer {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

function result(code: number, stdout: string, stderr: string): CliRun {
  return { code, stdout, stderr, json: <T>() => finalJson(stdout) as T };
}

/** Call main() in-process with captured stdout/stderr. */
export async function runCli(
  argv: string[],
  options: { cwd: string; tty?: boolean; env?: Record<string, string | undefined> } & Partial<CliEffects>,
): Promise<CliRun> {
  const stdout = new Capture(options.tty);
  const stderr = new Capture(options.tty);
  const { tty: _tty, ...rest } = options;
  const code = await main(argv, { self: SELF, env: { ...process.env, NO_COLOR: '1', ...options.env }, ...rest, stdout, stderr });
  return result(code, stdout.text, stderr.text);
}

/** Run `node --import tsx cli/run.ts <argv>` as a real process (cwd: the repository). */
export function runCliProcess(argv: string[], options: { timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RUN_TS, ...argv], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise(result(code ?? -1, stdout, stderr));
    });
  });
}

/** A temp directory removed by the returned cleanup. */
export async function tempDir(prefix = 'svc-cli-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
