// Run a shell command line on a real pseudo-terminal (util-linux `script`), so what it starts sees a
// TTY on stdin, stdout and stderr, and a test can answer its questions as a person would: wait for a
// prompt in the output, then type. The output is what the terminal showed (echo included).
import { spawn } from 'node:child_process';
import { commandComponent, type Component } from './require-components.js';

/** `script` from util-linux, which gives the command its terminal. */
export function terminalComponent(): Component {
  return commandComponent('script (util-linux)', ['script', '--version']);
}

/** A command running on a terminal. */
export interface TerminalRun {
  /** Type `text` (use `\r` for Enter). */
  type(text: string): void;
  /** Resolve with the first match of `pattern` in the output after `from` (an offset into output()). */
  waitFor(pattern: RegExp, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  output(): string;
  exited: Promise<{ exitCode: number | null; output: string }>;
  kill(): void;
}

/** Quote `value` for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Start `commandLine` (run by sh -c) on a new terminal in `cwd` with exactly `env`. */
export function runInTerminal(commandLine: string, options: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number }): TerminalRun {
  const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // -q: no start/done banner; -e: exit with the command's status; -f: flush as output arrives.
  const child = spawn('script', ['-qefc', commandLine, '/dev/null'], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const heard = (chunk: string): void => {
    out += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding('utf8').on('data', heard);
  child.stderr.setEncoding('utf8').on('data', heard);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const exited = new Promise<{ exitCode: number | null; output: string }>((resolve) => {
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      for (const listener of listeners) listener();
      resolve({ exitCode, output: out });
    });
  });
  return {
    type: (text) => void child.stdin.write(text),
    output: () => out,
    exited,
    kill: () => child.kill('SIGKILL'),
    waitFor(pattern, timeoutMs = 60_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = out.slice(from).match(pattern);
          if (match) return finish(() => resolve(match));
          if (child.exitCode !== null || child.signalCode !== null) finish(() => reject(new Error(`exited before printing ${pattern}:\n${out}`)));
        };
        const timeout = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${pattern}:\n${out}`))), timeoutMs);
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
