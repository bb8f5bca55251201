import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Command } from './command.js';
import { SvcError } from './errors.js';

export interface ExecResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  /** Stream output to the parent's stdio instead of capturing it. */
  inherit?: boolean;
  /**
   * Send output nowhere. For programs that hand off to a long-lived child (a browser opener): that
   * child would inherit capture pipes and hold them open, so the run would not end until it exits.
   */
  discard?: boolean;
  /** Called with each captured chunk (for progress or logs). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Cap on captured bytes per stream; the tail beyond it is dropped. */
  maxCapture?: number;
  /** Standard input to write, then close. */
  input?: string | Uint8Array;
}

function outputStdio(options: ExecOptions): 'ignore' | 'inherit' | 'pipe' {
  return options.discard ? 'ignore' : options.inherit ? 'inherit' : 'pipe';
}

/** Spawns a Command; the seam tests replace to observe argv without running anything. */
export type Spawner = (cmd: Command, options: SpawnOptions) => ChildProcess;

/** The real spawner: never uses a shell. */
export const nodeSpawner: Spawner = (cmd, options) => spawn(cmd.file, [...cmd.args], { ...options, shell: false });

/** Run a command to completion without a shell, capturing output; rejects only if it cannot start. */
export function execCommand(cmd: Command, options: ExecOptions = {}, spawner: Spawner = nodeSpawner): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const env = cmd.replaceEnv ? { ...cmd.env } : { ...process.env, ...cmd.env };
    const child = spawner(cmd, {
      cwd: cmd.cwd,
      env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', outputStdio(options), outputStdio(options)],
      signal: options.signal,
    });
    const max = options.maxCapture ?? 4 * 1024 * 1024;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      options.onOutput?.('stdout', chunk);
      if (outBytes < max) out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      options.onOutput?.('stderr', chunk);
      if (errBytes < max) err.push(chunk);
      errBytes += chunk.length;
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        reject(
          new SvcError('SVC_COMMAND_NOT_FOUND', `Cannot run ${cmd.file}: ${error.code === 'ENOENT' ? 'not found' : 'permission denied'}`, { cause: error }),
        );
      } else {
        reject(error);
      }
    });
    child.once('close', (exitCode, signal) => {
      resolve({ exitCode, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Run a command and throw SVC_COMMAND_FAILED unless it exits 0. */
export async function execChecked(cmd: Command, options: ExecOptions = {}, spawner: Spawner = nodeSpawner): Promise<ExecResult> {
  const result = await execCommand(cmd, options, spawner);
  if (result.exitCode !== 0) {
    const tail = result.stderr.trim().split('\n').slice(-5).join('\n');
    throw new SvcError(
      'SVC_COMMAND_FAILED',
      `${[cmd.file, ...cmd.args].join(' ')} exited with ${result.exitCode ?? result.signal}${tail ? `:\n${tail}` : ''}`,
      {
        details: { exitCode: result.exitCode, signal: result.signal },
      },
    );
  }
  return result;
}
