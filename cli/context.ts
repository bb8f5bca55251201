// Everything a command touches outside its own arguments is passed in here, so tests call
// main() in-process with their own writers, environment, clock and working directory.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock, type Clock } from '../src/core/clock.js';
import type { Command } from '../src/core/command.js';
import { execCommand, type ExecOptions, type ExecResult } from '../src/core/exec.js';
import type { HttpClient } from '../src/core/http/http-client.js';
import type { Output } from './output.js';
import type { TerminalInput } from './terminal-prompt.js';
import type { Writer } from './writer.js';

/** How to run this same CLI again as a child process (used when build.command starts with "svc"). */
export interface SelfCommand {
  readonly file: string;
  readonly args: readonly string[];
}

/** Effects main() receives; every field has a real default in defaultEffects(). */
export interface CliEffects {
  stdout: Writer;
  stderr: Writer;
  /**
   * Standard input, for commands that read a value from it (e.g. `svc secrets set`); `terminal` is the
   * same input as a TTY stream when it is one, for questions answered without echo (`svc register`).
   */
  stdin: AsyncIterable<Uint8Array | string> & { readonly isTTY?: boolean; terminal?(): TerminalInput };
  env: Readonly<Record<string, string | undefined>>;
  /** Working directory; the global `--cwd` flag replaces it before any action runs. */
  cwd: string;
  /** Home directory holding ~/.svc/config.json. */
  home: string;
  clock: Clock;
  /** Every request to a control plane goes through it (svc's one HTTP client). */
  http: HttpClient;
  self: SelfCommand;
  /** The operating system; chooses the browser opener of `svc open` (cli/browser-opener.ts). */
  platform: NodeJS.Platform;
  /** Runs a program without a shell (src/core/exec.ts), e.g. the browser opener built as argv data. */
  exec(cmd: Command, options?: ExecOptions): Promise<ExecResult>;
}

/** What every command's action sees: the effects plus the output renderer for this run. */
export interface CliContext extends CliEffects {
  /** True when `--json` was given: results and errors go to stdout as JSON, no progress. */
  json: boolean;
  out: Output;
}

/** The real effects of a `svc` process. */
export function defaultEffects(): CliEffects {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: lazyStdin(),
    env: process.env,
    cwd: process.cwd(),
    home: homedir(),
    clock: systemClock,
    http: lazyHttpClient(),
    self: currentProcessCommand(),
    platform: process.platform,
    exec: (cmd, options) => execCommand(cmd, options),
  };
}

// The HTTP client (undici) is loaded by the first request: offline commands and --version never pay for it.
function lazyHttpClient(): HttpClient {
  const client = async (): Promise<HttpClient> => (await import('../src/core/http/http-client.js')).defaultHttpClient;
  return {
    send: async (req) => (await client()).send(req),
    open: async (req) => (await client()).open(req),
  };
}

// process.stdin is created on first access (and may hold the process open), so touch it only when read.
function lazyStdin(): CliEffects['stdin'] {
  return {
    get isTTY() {
      return process.stdin.isTTY;
    },
    [Symbol.asyncIterator]: () => process.stdin[Symbol.asyncIterator](),
    terminal: () => process.stdin,
  };
}

const LOADER_FLAGS = new Set(['--import', '--loader', '--experimental-loader', '--require', '-r']);

/**
 * The argv that started this process (node, its flags, the CLI script), with bare loader
 * specifiers such as `--import tsx` resolved to absolute URLs so the child can run in any cwd.
 */
export function currentProcessCommand(): SelfCommand {
  const args: string[] = [];
  const execArgv = process.execArgv;
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (LOADER_FLAGS.has(flag)) {
      const value = eq > 0 ? arg.slice(eq + 1) : execArgv[++i];
      if (value !== undefined) args.push(flag, resolveSpecifier(value));
      continue;
    }
    args.push(arg);
  }
  if (process.argv[1]) args.push(process.argv[1]);
  return { file: process.execPath, args };
}

function resolveSpecifier(specifier: string): string {
  if (specifier.startsWith('.')) return pathToFileURL(resolve(process.cwd(), specifier)).href;
  if (specifier.startsWith('/') || /^[a-z]+:/i.test(specifier)) return specifier;
  try {
    return import.meta.resolve(specifier);
  } catch {
    return specifier;
  }
}
