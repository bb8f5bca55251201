// Spawn the `svc` CLI from the current TypeScript sources (cli/run.ts through tsx) as a real child process.
// `runCli` waits for exit and captures output; `spawnCli` streams output so a test can react
// to what the CLI prints (e.g. read the device-login user code) before it exits. `finalJson` reads
// the document of a `--json` run, also after streamed JSON lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './repo-root.js';

export interface CliRunOptions {
  /** HOME for the child (where ~/.svc/config.json lives); use a temp dir in tests. */
  home?: string;
  cwd?: string;
  /** Environment additions. SVC_TOKEN / SVC_SERVER are removed from the inherited env unless given here. */
  env?: Record<string, string | undefined>;
  /** Standard input to write, then close. */
  input?: string;
  /** Kill the child after this many milliseconds (default 60 s). */
  timeoutMs?: number;
}

export interface CliResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI child with live access to its output. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolve with the first match of `pattern` in stdout (or stderr), reject on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolve when the child exits. */
  exited: Promise<CliResult>;
  kill(): void;
}

const entry = join(repoRoot, 'cli', 'run.ts');

/** Start `svc <args>` from sources; the caller must await `exited` or call `kill()`. */
export function spawnCli(args: readonly string[], options: CliRunOptions = {}): CliProcess {
  const env: Record<string, string | undefined> = { ...process.env, SVC_TOKEN: undefined, SVC_SERVER: undefined, NO_COLOR: '1' };
  if (options.home) env.HOME = options.home;
  Object.assign(env, options.env);
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const listener of listeners) listener();
  });
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const exited = new Promise<CliResult>((resolve) => {
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      for (const listener of listeners) listener();
      resolve({ exitCode, signal, stdout: out, stderr: err });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => child.kill('SIGKILL'),
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = out.match(pattern) ?? err.match(pattern);
          if (match) return finish(() => resolve(match));
          if (done || child.exitCode !== null) finish(() => reject(new Error(`CLI exited before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const timeout = setTimeout(() => finish(() => reject(new Error(`Timed out waiting for ${pattern}\nstdout: ${out}\nstderr: ${err}`))), timeoutMs);
        const finish = (action: () => void): void => {
          clearTimeout(timeout);
          listeners.delete(check);
          action();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Run `svc <args>` from sources to completion and capture its output and exit code. */
export function runCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  return spawnCli(args, options).exited;
}

/**
 * The JSON document of a `--json` run: the whole of stdout, or (deploy, rollback and restore stream
 * JSON lines) the last line, the result. Throws when neither is JSON.
 */
export function finalJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch (error) {
    const last = stdout.trimEnd().split('\n').at(-1);
    if (last === undefined || !stdout.includes('"event":"result"')) throw error;
    return JSON.parse(last);
  }
}
